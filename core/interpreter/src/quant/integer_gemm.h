// Exact 8-bit integer matrix products on oneDNN, for the quantized kernels (linear.h).
//
// oneDNN's u8 x s8 -> s32 product is exact on CPUs with VNNI (AVX512-VNNI or AVX-VNNI), whose
// dot-product instruction accumulates in 32 bits; on older x86 CPUs its kernels pair products in
// saturating 16-bit sums ("Nuances of int8 computations" in oneDNN's guide), so results could
// differ from the integer arithmetic the kernels define. The library path is therefore taken
// only where it is exact; elsewhere the kernels keep their loops.
#pragma once

#include <cstdint>

namespace tico::interp::quant {

// True when integerGemmU8S8 may be used: the CPU has VNNI (detected once) and TICO_INTEGER_GEMM
// is not "loops" (which forces the loops, for tests and measurements; read on every call).
bool integerGemmAvailable();

// C[m, n] = Σ_k (A[m, k] − a_zero) · B[n, k] in int32, for A uint8 [M, K] (row stride lda),
// B int8 [N, K] (row stride ldb), C [M, N] (row stride ldc). Tiles of the product are shared out
// over the interpreter's threads; the result does not depend on the split.
void integerGemmU8S8(int64_t M, int64_t N, int64_t K, const uint8_t *A, int64_t lda, uint8_t a_zero,
                     const int8_t *B, int64_t ldb, int32_t *C, int64_t ldc);

} // namespace tico::interp::quant
