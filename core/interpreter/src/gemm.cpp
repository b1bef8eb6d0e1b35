// Float32 matrix products on oneDNN's sgemm.
//
// Chosen by measurement (tests/bench/gemm_libraries.cpp, numbers in docs/interpreter.md): on the
// interpreter's shapes oneDNN's just-in-time kernels ran 8-30x faster than the hand-written
// blocked loops they replace, ahead of OpenBLAS 0.3.21 and of Eigen 3.4 (which, compiled for the
// baseline x86-64 target as a distributable library must be, gets SSE2 only). oneDNN picks the
// instruction set when it runs, so one build serves every x86-64 CPU.
//
// Threads: the product is cut into tiles of 128 x 128 outputs and the tiles are shared out by
// parallelFor; each tile is one single-threaded oneDNN call over all of K. oneDNN's own threading
// splits K across threads for some shapes (64x1024x1024, 16x16x8192 gave different bits on 1, 2
// and 4 threads), which would make a folded constant, a calibration range or a file depend on
// the machine's core count. Tiles depend on the shape only, so every thread count gives the same
// bits, and on two threads they measured as fast as oneDNN's own split or faster.
#include "gemm.h"

#include "parallel.h"

#include "tico/support/error.h"

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <functional>
#include <cstring>
#include <string>

namespace tico::interp {

namespace {

// oneDNN runs single-threaded here (parallelism comes from the tiles): on any thread that has not
// said so it starts an OpenMP team of its own and splits K (measured: other bits). OpenMP keeps
// the setting per thread, so every thread that runs a tile sets it once.
void keepOneDnnOnThisThread() {
  thread_local bool set = false;
  if (!set) {
    omp_set_num_threads(1);
    set = true;
  }
}

} // namespace

void forEachProductTile(int64_t M, int64_t N, int64_t K, int64_t min_work,
                        const std::function<void(int64_t, int64_t, int64_t, int64_t)> &tile) {
  constexpr int64_t kTile = 128;
  const int64_t row_tiles = (M + kTile - 1) / kTile;
  const int64_t column_tiles = (N + kTile - 1) / kTile;
  const int64_t tile_work = std::min(M, kTile) * std::min(N, kTile) * K;
  const int64_t min_tiles = std::max<int64_t>(1, min_work / std::max<int64_t>(1, tile_work));
  parallelFor(row_tiles * column_tiles, min_tiles, [&](int64_t t0, int64_t t1) {
    keepOneDnnOnThisThread();
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t m0 = (t / column_tiles) * kTile, n0 = (t % column_tiles) * kTile;
      tile(m0, n0, std::min(kTile, M - m0), std::min(kTile, N - n0));
    }
  });
}

void gemmNT(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C,
            int64_t ldc, const float *bias) {
  gemm(false, true, M, N, K, A, lda, B, ldb, C, ldc, bias);
}

void gemm(bool transpose_a, bool transpose_b, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
          const float *B, int64_t ldb, float *C, int64_t ldc, const float *bias) {
  if (M <= 0 || N <= 0)
    return;
  if (bias != nullptr)
    for (int64_t m = 0; m < M; ++m)
      std::memcpy(C + m * ldc, bias, static_cast<std::size_t>(N) * sizeof(float));
  if (K <= 0) {
    if (bias == nullptr)
      for (int64_t m = 0; m < M; ++m)
        std::fill(C + m * ldc, C + m * ldc + N, 0.0f);
    return;
  }
  const float beta = bias != nullptr ? 1.0f : 0.0f;
  // About 256 K multiply-adds per thread at least: below that, waking a thread costs more.
  forEachProductTile(M, N, K, int64_t{1} << 18, [&](int64_t m0, int64_t n0, int64_t rows, int64_t columns) {
    // oneDNN's sgemm takes row-major operands and a transpose flag each. A tile's rows of
    // op(A) start at row m0 of A, or at column m0 of a transposed A; likewise for B.
    const float *a = transpose_a ? A + m0 : A + m0 * lda;
    const float *b = transpose_b ? B + n0 * ldb : B + n0;
    const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', rows, columns, K, 1.0f, a,
                                            lda, b, ldb, beta, C + m0 * ldc + n0, ldc);
    if (status != dnnl_success)
      throw Error("oneDNN sgemm failed (status " + std::to_string(static_cast<int>(status)) + ") on a " +
                  std::to_string(rows) + "x" + std::to_string(columns) + "x" + std::to_string(K) + " tile");
  });
}

} // namespace tico::interp
