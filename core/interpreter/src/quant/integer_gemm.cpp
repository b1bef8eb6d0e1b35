#include "quant/integer_gemm.h"

#include "gemm.h"

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
  const int32_t no_offset = 0;
  // The float product's tiling (gemm.h); integer sums are exact in any split.
  forEachProductTile(M, N, K, int64_t{1} << 20, [&](int64_t m0, int64_t n0, int64_t rows, int64_t columns) {
    const dnnl_status_t status = dnnl_gemm_u8s8s32('N', 'T', 'F', rows, columns, K, 1.0f, A + m0 * lda, lda, a_zero,
                                                   B + n0 * ldb, ldb, 0, 0.0f, C + m0 * ldc + n0, ldc, &no_offset);
    if (status != dnnl_success)
      throw Error("oneDNN integer product failed (status " + std::to_string(static_cast<int>(status)) + ")");
  });
}

} // namespace tico::interp::quant
