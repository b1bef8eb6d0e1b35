// Blocked float32 matrix product.
//
// The work is cut into K-blocks of 512 (a few rows of A and B stay in L1 while a tile is
// computed) and N-blocks of 64 rows of B (reused from L2 for every row of A). A tile computes
// 2 rows x 4 columns of C with 8-lane vector accumulators along K (GCC vector extensions, so no
// intrinsics and no external BLAS); the function is compiled twice (AVX2+FMA and baseline) and
// the loader picks the one the CPU supports. Large products are split over threads along N (or
// M when N is small); every thread writes its own part of C.
#include "gemm.h"

#include "parallel.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

typedef float v8 __attribute__((vector_size(32)));

inline __attribute__((always_inline)) v8 load8(const float *p) {
  v8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline __attribute__((always_inline)) float horizontalSum(v8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

template <int MR, int NR>
inline __attribute__((always_inline)) void tile(const float *A, int64_t lda, const float *B, int64_t ldb, int64_t kc,
                                                float *C, int64_t ldc) {
  v8 acc[MR][NR] = {};
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8) {
    v8 a[MR];
    for (int i = 0; i < MR; ++i)
      a[i] = load8(A + i * lda + k);
    for (int j = 0; j < NR; ++j) {
      const v8 b = load8(B + j * ldb + k);
      for (int i = 0; i < MR; ++i)
        acc[i][j] += a[i] * b;
    }
  }
  float tail[MR][NR] = {};
  for (; k < kc; ++k)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j)
        tail[i][j] += A[i * lda + k] * B[j * ldb + k];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j)
      C[i * ldc + j] += horizontalSum(acc[i][j]) + tail[i][j];
}

template <int MR>
inline __attribute__((always_inline)) void tileColumns(int nr, const float *A, int64_t lda, const float *B,
                                                       int64_t ldb, int64_t kc, float *C, int64_t ldc) {
  switch (nr) {
  case 4: tile<MR, 4>(A, lda, B, ldb, kc, C, ldc); break;
  case 3: tile<MR, 3>(A, lda, B, ldb, kc, C, ldc); break;
  case 2: tile<MR, 2>(A, lda, B, ldb, kc, C, ldc); break;
  default: tile<MR, 1>(A, lda, B, ldb, kc, C, ldc); break;
  }
}

constexpr int64_t kBlockK = 512;
constexpr int64_t kBlockN = 64;

// C[m0:m1, n0:n1] += A * B^T over all of K (C already holds the bias or zeros).
__attribute__((target_clones("arch=haswell", "default"))) void
accumulateBlock(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t K, const float *A, int64_t lda,
                const float *B, int64_t ldb, float *C, int64_t ldc) {
  for (int64_t k0 = 0; k0 < K; k0 += kBlockK) {
    const int64_t kc = std::min(kBlockK, K - k0);
    for (int64_t nb = n0; nb < n1; nb += kBlockN) {
      const int64_t ne = std::min(nb + kBlockN, n1);
      for (int64_t m = m0; m < m1; m += 2) {
        const float *a = A + m * lda + k0;
        float *c = C + m * ldc;
        for (int64_t n = nb; n < ne; n += 4) {
          const int nr = static_cast<int>(std::min<int64_t>(4, ne - n));
          if (m + 1 < m1)
            tileColumns<2>(nr, a, lda, B + n * ldb + k0, ldb, kc, c + n, ldc);
          else
            tileColumns<1>(nr, a, lda, B + n * ldb + k0, ldb, kc, c + n, ldc);
        }
      }
    }
  }
}

} // namespace

void gemmNT(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C,
            int64_t ldc, const float *bias) {
  if (M <= 0 || N <= 0)
    return;
  for (int64_t m = 0; m < M; ++m) {
    float *c = C + m * ldc;
    if (bias != nullptr)
      std::memcpy(c, bias, static_cast<std::size_t>(N) * sizeof(float));
    else
      std::fill(c, c + N, 0.0f);
  }
  if (K <= 0)
    return;
  // Roughly 64 K multiply-adds per item keep thread start-up below a few percent.
  const int64_t flops_per_column = M * K;
  const int64_t min_columns = std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(1, flops_per_column));
  if (N >= 2 * kBlockN || M < 8) {
    parallelFor(N, std::max<int64_t>(min_columns, 16), [&](int64_t n0, int64_t n1) {
      accumulateBlock(0, M, n0, n1, K, A, lda, B, ldb, C, ldc);
    });
  } else {
    const int64_t min_rows = std::max<int64_t>(2, (int64_t{1} << 18) / std::max<int64_t>(1, N * K));
    parallelFor((M + 1) / 2, min_rows / 2 + 1, [&](int64_t r0, int64_t r1) {
      accumulateBlock(2 * r0, std::min(M, 2 * r1), 0, N, K, A, lda, B, ldb, C, ldc);
    });
  }
}

void transpose2d(int64_t rows, int64_t cols, const float *in, int64_t ld_in, float *out) {
  constexpr int64_t block = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += block)
    for (int64_t c0 = 0; c0 < cols; c0 += block)
      for (int64_t r = r0; r < std::min(rows, r0 + block); ++r)
        for (int64_t c = c0; c < std::min(cols, c0 + block); ++c)
          out[c * rows + r] = in[r * ld_in + c];
}

} // namespace tico::interp
