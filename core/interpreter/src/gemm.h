// The one matrix-product kernel behind FULLY_CONNECTED, BATCH_MATMUL, CONV_2D (im2col),
// TRANSPOSE_CONV and ATTENTION.
#pragma once

#include <cstdint>

namespace tico::interp {

// C[M, N] = A[M, K] * B[N, K]^T (+ bias[N] when not null); float32, row-major, with leading
// dimensions (elements between consecutive rows). Both operands are read along K, which is
// how FULLY_CONNECTED weights ([out, in]) and OHWI convolution filters are stored.
void gemmNT(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
            float *C, int64_t ldc, const float *bias = nullptr);

} // namespace tico::interp
