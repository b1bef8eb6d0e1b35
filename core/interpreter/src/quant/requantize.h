// Requantization of integer codes from one per-tensor quantization to another, in fixed point:
// y = zp_out + round(x - zp_in) * (s_in / s_out), clamped to [max(floor, QOut min), QOut max].
// QUANTIZE of an already quantized tensor is this with no floor; the quantized RELU is this
// with the floor at the output zero point (the clamp at real 0 is the relu).
#pragma once

#include "quant/fixed_point.h"
#include "quant/qparams.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tico::interp::quant {

// kSign = -1 negates the real values on the way (the quantized NEG).
template <typename QIn, typename QOut, int kSign = 1>
void requantizeCodes(const QIn *x, int64_t n, const QParams &in, const QParams &out, QOut *y, const char *what,
                     int64_t floor = std::numeric_limits<QOut>::min()) {
  const Multiplier m = quantizeMultiplier(in.scale[0] / out.scale[0], what);
  const int64_t zp_in = in.zero_point[0], zp_out = out.zero_point[0];
  const int64_t lo = std::max<int64_t>(std::numeric_limits<QOut>::min(), floor), hi = std::numeric_limits<QOut>::max();
  for (int64_t i = 0; i < n; ++i) {
    // The difference of two codes fits int32 for every 8- and 16-bit type.
    const int64_t v = zp_out + multiplyByQuantizedMultiplier(static_cast<int32_t>(kSign * (int64_t{x[i]} - zp_in)), m);
    y[i] = static_cast<QOut>(std::clamp(v, lo, hi));
  }
}

} // namespace tico::interp::quant
