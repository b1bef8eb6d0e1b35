// Rotary position embedding of one row of `depth` values (shared by ROPE and ATTENTION).
//
// GPT_NEOX rotates the pair (i, i + depth/2):
//   out[i]         = x[i] * cos[i] - x[i + h] * sin[i]
//   out[i + h]     = x[i] * sin[i + h] + x[i + h] * cos[i + h]
// GPT_J rotates neighbours (2i, 2i + 1):
//   out[2i]        = x[2i] * cos[2i] - x[2i + 1] * sin[2i]
//   out[2i + 1]    = x[2i] * sin[2i + 1] + x[2i + 1] * cos[2i + 1]
// The sin/cos rows hold one value per element, as HuggingFace's tables do (each frequency
// twice), so one table row serves both halves of a pair.
#pragma once

#include "tico/circle/circle_generated.h"

#include <cstdint>

namespace tico::interp {

inline void rotateRow(circle::RoPEMode mode, const float *x, const float *sin, const float *cos, float *out,
                      int64_t depth) {
  if (mode == circle::RoPEMode::GPT_J) {
    for (int64_t i = 0; i + 1 < depth; i += 2) {
      const float a = x[i], b = x[i + 1];
      out[i] = a * cos[i] - b * sin[i];
      out[i + 1] = a * sin[i + 1] + b * cos[i + 1];
    }
  } else {
    const int64_t half = depth / 2;
    for (int64_t i = 0; i < half; ++i) {
      const float a = x[i], b = x[i + half];
      out[i] = a * cos[i] - b * sin[i];
      out[i + half] = a * sin[i + half] + b * cos[i + half];
    }
  }
}

} // namespace tico::interp
