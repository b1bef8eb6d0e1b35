// Float32 matrix products on oneDNN's sgemm.
//
// Chosen by measurement (tests/bench/gemm_libraries.cpp, numbers in docs/interpreter.md): on the
// interpreter's shapes oneDNN's just-in-time kernels ran 8-30x faster than the hand-written
// blocked loops they replace, ahead of OpenBLAS 0.3.21 and of Eigen 3.4 (which, compiled for the
// baseline x86-64 target as a distributable library must be, gets SSE2 only). oneDNN picks the
// instruction set when it runs, so one build serves every x86-64 CPU.
//
// Threads: oneDNN runs on OpenMP. A product reached from inside parallelFor (BATCH_MATMUL splits
// batches over threads) runs on its caller's thread only; everywhere else it gets the
// interpreter's thread count, so TICO_INTERPRETER_THREADS governs both.
#include "gemm.h"

#include "parallel.h"

#include "tico/support/error.h"

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace tico::interp {

void gemmNT(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C,
            int64_t ldc, const float *bias) {
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
  // Per calling thread: OpenMP keeps the team size per thread, so this never affects another
  // thread's products.
  thread_local int team = 0;
  const int wanted = omp_in_parallel() ? 1 : threadCount();
  if (team != wanted) {
    omp_set_num_threads(wanted);
    team = wanted;
  }
  // Row-major C = A * B^T: oneDNN's sgemm takes row-major operands and a transpose flag.
  const dnnl_status_t status =
      dnnl_sgemm('N', 'T', M, N, K, 1.0f, A, lda, B, ldb, bias != nullptr ? 1.0f : 0.0f, C, ldc);
  if (status != dnnl_success)
    throw Error("oneDNN sgemm failed (status " + std::to_string(static_cast<int>(status)) + ") for a " +
                std::to_string(M) + "x" + std::to_string(K) + " by " + std::to_string(K) + "x" + std::to_string(N) +
                " product");
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
