// The one matrix-product kernel behind FULLY_CONNECTED, BATCH_MATMUL, CONV_2D (im2col),
// TRANSPOSE_CONV and ATTENTION.
#pragma once

#include <cstdint>
#include <functional>

namespace tico::interp {

// C[M, N] = A[M, K] * B[N, K]^T (+ bias[N] when not null); float32, row-major, with leading
// dimensions (elements between consecutive rows). Both operands are read along K, which is
// how FULLY_CONNECTED weights ([out, in]) and OHWI convolution filters are stored.
void gemmNT(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
            float *C, int64_t ldc, const float *bias = nullptr);

// The general form: C[M, N] = op(A) * op(B) (+ bias[N]), where op(A) is A[M, K] or, with
// `transpose_a`, A stored as [K, M]; op(B) is B stored as [K, N] or, with `transpose_b`, as
// [N, K] (gemmNT is transpose_b). Operands are read where they are: BATCH_MATMUL's adjoint and
// plain operands need no transposed copy.
void gemm(bool transpose_a, bool transpose_b, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
          const float *B, int64_t ldb, float *C, int64_t ldc, const float *bias = nullptr);

// The tiling both products use: an M x N result cut into 128 x 128 tiles shared out over the
// interpreter's threads (at least `min_work` multiply-adds per thread), tile(m0, n0, rows,
// columns) called for each on a thread where oneDNN runs single-threaded (its own threading
// splits K, which changes float bits with the thread count; tiles depend on the shape only).
void forEachProductTile(int64_t M, int64_t N, int64_t K, int64_t min_work,
                        const std::function<void(int64_t, int64_t, int64_t, int64_t)> &tile);

} // namespace tico::interp
