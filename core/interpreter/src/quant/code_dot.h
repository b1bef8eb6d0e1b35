// Dot products of activations with integer weight codes: the inner loops of weight-only and
// int16-activation matrix-vector products (an LLM's decode step), where the weights are read
// once per token and their bytes, not the arithmetic, set the time.
//
// Each has an AVX2 + FMA body chosen at run time when the CPU has it, and a portable loop
// otherwise; both give the same result up to float summation order (the integer ones exactly).
#pragma once

#include <cstdint>

namespace tico::interp::quant {

// Σ x[k] · w[k] in float (a float matrix-vector product's row).
float dotFloat(const float *x, const float *w, int64_t n);

// Σ x[k] · (w[k] − zero) in float, for weights stored as uint8 or int8 codes.
float dotFloatCodes(const float *x, const uint8_t *w, int32_t zero, int64_t n);
float dotFloatCodes(const float *x, const int8_t *w, int32_t zero, int64_t n);

// Σ x[k] · (w[k] − zero), exact, for int16 activations with zero point 0 (symmetric int16, the
// LLM recipes' activations) and uint8 / int8 weight codes.
int64_t dotInt16Codes(const int16_t *x, const uint8_t *w, int32_t zero, int64_t n);
int64_t dotInt16Codes(const int16_t *x, const int8_t *w, int32_t zero, int64_t n);

// w16[k] = w[k] − zero for 8-bit codes (exact in int16): a weight row widened once and then
// multiplied with many activation rows by dotInt16.
void widenCodes(const uint8_t *w, int32_t zero, int16_t *w16, int64_t n);
void widenCodes(const int8_t *w, int32_t zero, int16_t *w16, int64_t n);
// Σ x[k] · w16[k], exact.
int64_t dotInt16(const int16_t *x, const int16_t *w16, int64_t n);

} // namespace tico::interp::quant
