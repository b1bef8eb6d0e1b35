#include "quant/integer_gemm.h"

#include "gemm.h"
#include "parallel.h"

#include "tico/support/error.h"

#include <dnnl.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace tico::interp::quant {

bool integerGemmAvailable() {
  static const bool exact_here = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
#else
    return false;
#endif
  }();
  const char *forced = std::getenv("TICO_INTEGER_GEMM"); // read per call: tests switch it
  return exact_here && !(forced != nullptr && std::string(forced) == "loops");
}

void integerGemmU8S8(int64_t M, int64_t N, int64_t K, const uint8_t *A, int64_t lda, uint8_t a_zero,
                     const int8_t *B, int64_t ldb, int32_t *C, int64_t ldc) {
  if (M <= 0 || N <= 0)
    return;
  if (K <= 0) {
    for (int64_t m = 0; m < M; ++m)
      std::fill(C + m * ldc, C + m * ldc + N, 0);
    return;
  }
  // The same tiling as the float product (gemm.cpp): oneDNN single-threaded per tile.
  constexpr int64_t kTile = 128;
  const int64_t row_tiles = (M + kTile - 1) / kTile;
  const int64_t column_tiles = (N + kTile - 1) / kTile;
  const int64_t tile_work = std::min(M, kTile) * std::min(N, kTile) * K;
  const int64_t min_tiles = std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, tile_work));
  const int32_t no_offset = 0;
  parallelFor(row_tiles * column_tiles, min_tiles, [&](int64_t t0, int64_t t1) {
    keepOneDnnOnThisThread();
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t m0 = (t / column_tiles) * kTile, n0 = (t % column_tiles) * kTile;
      const int64_t rows = std::min(kTile, M - m0), columns = std::min(kTile, N - n0);
      const dnnl_status_t status = dnnl_gemm_u8s8s32('N', 'T', 'F', rows, columns, K, 1.0f, A + m0 * lda, lda, a_zero,
                                                     B + n0 * ldb, ldb, 0, 0.0f, C + m0 * ldc + n0, ldc, &no_offset);
      if (status != dnnl_success)
        throw Error("oneDNN integer product failed (status " + std::to_string(static_cast<int>(status)) + ")");
    }
  });
}

} // namespace tico::interp::quant
