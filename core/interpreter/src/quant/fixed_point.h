// Fixed-point arithmetic of the quantized kernels, with the semantics integer NPUs and the
// TFLite reference kernels use (gemmlowp's primitives), so a quantized model computes the same
// integers here as on such a target.
//
// A real multiplier r > 0 is stored as a 32-bit mantissa m in [2^30, 2^31) and an exponent e
// with r ≈ m · 2^(e−31). Applying it to an int32 accumulator x is
//   roundingDivideByPOT(saturatingRoundingDoublingHighMul(x · 2^max(e,0), m), max(−e,0)),
// i.e. two roundings to nearest (the first with ties toward +∞, the second with ties away from
// zero, exactly gemmlowp's). Accumulators of int16 activations are int64;
// they are scaled with one exact 128-bit product and a single rounding (half away from zero),
// because the 32-bit doubling-high-mul cannot hold them.
#pragma once

#include <cstdint>

namespace tico::interp::quant {

struct Multiplier {
  int32_t mantissa = 0; // 0 encodes a multiplier too small to matter (below 2^-62)
  int exponent = 0;
};

// Decomposes `real` (>= 0, finite); throws tico::Error when it is negative, not finite, or
// at least 2^31 (no kernel of a sane model needs that). `what` names it in the message.
Multiplier quantizeMultiplier(double real, const char *what);

// (a · b · 2) / 2^32 rounded to nearest, ties toward +∞ (gemmlowp's nudge-and-truncate),
// saturating the one overflow case (INT32_MIN · INT32_MIN).
int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b);

// x / 2^exponent rounded half away from zero (0 <= exponent <= 31).
int32_t roundingDivideByPOT(int32_t x, int exponent);

// x · multiplier for int32 accumulators (8-bit activations); saturates to int32. When the
// left shift of a multiplier >= 1 would overflow int32, the exact 64-bit form is used instead
// (the 32-bit pipeline would saturate the shifted value and return a wrong number).
int32_t multiplyByQuantizedMultiplier(int32_t x, Multiplier multiplier);

// x · multiplier for int64 accumulators (int16 activations), exact product, one rounding;
// saturates to int64.
int64_t multiplyByQuantizedMultiplier64(int64_t x, Multiplier multiplier);

} // namespace tico::interp::quant
