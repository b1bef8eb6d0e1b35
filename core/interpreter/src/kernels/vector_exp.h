// exp over float32 arrays, four lanes at a time: SOFTMAX, LOG_SOFTMAX and LOGISTIC spent most of
// their time in one scalar std::exp per element (`tico-circle bench` on a CLIP-like vision
// tower: LOGISTIC and SOFTMAX 22 % of the run for 0.3 % of its arithmetic).
//
// Cephes' single-precision polynomial (within 2 ulp of exp; the tests bound it against double
// exp) in GCC/Clang vector extensions, so a baseline x86-64 build (SSE2, the only ISA a
// distributable library may assume) runs it four lanes wide and wider targets unroll it. Every
// element, the tail included, goes through the same vector code, so a value's result does not
// depend on its position or on how threads split an array. Results: +inf above 88 (exp(88) is
// 1.65e38), 0 below -87.337 (exp's float32 subnormal tail is flushed), NaN stays NaN.
#pragma once

#include <cstdint>

namespace tico::interp {

// y[i] = exp(x[i]) for i < n; x and y may be the same array.
void expFloats(const float *x, float *y, int64_t n);

} // namespace tico::interp
