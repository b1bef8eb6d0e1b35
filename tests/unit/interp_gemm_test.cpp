// The interpreter's matrix product (core/interpreter/src/gemm.cpp, on oneDNN): values against a
// double-precision reference, leading dimensions and bias, the empty cases, and the same bits
// whatever the thread count (a folded constant or a calibration range must not depend on the
// machine's cores).
#include "cli_test_support.h"
#include "gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>
#include <optional>
#include <set>
#include <vector>

namespace tico::interp {
namespace {

struct Product {
  int64_t M, N, K;
};

// Shapes where oneDNN's own threading split K (different bits on 1, 2 and 4 threads), tile
// edges (not multiples of 128) and the decode and tall-skinny forms.
const Product kProducts[] = {{64, 1024, 1024}, {16, 16, 8192}, {300, 200, 77}, {1, 2048, 768}, {4096, 32, 27},
                             {129, 257, 513}};

std::vector<float> randomValues(std::size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float &x : v)
    x = uniform(rng);
  return v;
}

TEST(InterpGemm, MatchesADoubleReferenceWithStridesAndBias) {
  for (const Product &p : {Product{300, 200, 77}, Product{1, 130, 1000}, Product{129, 3, 5}}) {
    const int64_t lda = p.K + 3, ldb = p.K + 5, ldc = p.N + 7; // views into wider rows
    const std::vector<float> A = randomValues(p.M * lda, 1), B = randomValues(p.N * ldb, 2), bias = randomValues(p.N, 3);
    std::vector<float> C(p.M * ldc, 42.0f);
    gemmNT(p.M, p.N, p.K, A.data(), lda, B.data(), ldb, C.data(), ldc, bias.data());
    for (int64_t m = 0; m < p.M; ++m) {
      for (int64_t n = 0; n < p.N; ++n) {
        double want = bias[n];
        for (int64_t k = 0; k < p.K; ++k)
          want += double(A[m * lda + k]) * double(B[n * ldb + k]);
        ASSERT_NEAR(C[m * ldc + n], want, 1e-5 * std::sqrt(double(p.K)) + 1e-6) << p.M << "x" << p.N << "x" << p.K;
      }
      for (int64_t n = p.N; n < ldc; ++n)
        ASSERT_EQ(C[m * ldc + n], 42.0f) << "wrote past the row's N columns";
    }
  }
}

TEST(InterpGemm, IgnoresWhatTheOutputHeldAndHandlesEmptyProducts) {
  const std::vector<float> A = randomValues(7 * 9, 4), B = randomValues(5 * 9, 5);
  std::vector<float> C(7 * 5, std::nanf(""));
  gemmNT(7, 5, 9, A.data(), 9, B.data(), 9, C.data(), 5);
  for (float c : C)
    EXPECT_TRUE(std::isfinite(c)); // beta = 0: NaNs already in C never leak into the result
  const float bias[5] = {1, 2, 3, 4, 5};
  std::vector<float> D(7 * 5, std::nanf(""));
  gemmNT(7, 5, 0, A.data(), 9, B.data(), 9, D.data(), 5, bias); // K = 0: bias only
  for (int m = 0; m < 7; ++m)
    for (int n = 0; n < 5; ++n)
      EXPECT_EQ(D[m * 5 + n], bias[n]);
  std::vector<float> E(7 * 5, std::nanf(""));
  gemmNT(7, 5, 0, A.data(), 9, B.data(), 9, E.data(), 5); // K = 0, no bias: zeros
  for (float e : E)
    EXPECT_EQ(e, 0.0f);
  gemmNT(0, 5, 9, A.data(), 9, B.data(), 9, nullptr, 5); // M = 0: nothing touched
}

// Run by SameBitsOnEveryThreadCount in a child process with TICO_INTERPRETER_THREADS set (the
// count is read once per process); prints one digest of every product's bits.
TEST(InterpGemm, DISABLED_PrintsDigestOfProducts) {
  uint64_t digest = 1469598103934665603ull; // FNV-1a
  for (const Product &p : kProducts) {
    const std::vector<float> A = randomValues(p.M * p.K, 7), B = randomValues(p.N * p.K, 8);
    std::vector<float> C(p.M * p.N);
    gemmNT(p.M, p.N, p.K, A.data(), p.K, B.data(), p.K, C.data(), p.N);
    const auto *bytes = reinterpret_cast<const unsigned char *>(C.data());
    for (std::size_t i = 0; i < C.size() * sizeof(float); ++i)
      digest = (digest ^ bytes[i]) * 1099511628211ull;
  }
  std::printf("GEMM_DIGEST %016llx\n", static_cast<unsigned long long>(digest));
}

// Removes an environment variable for the scope's lifetime and puts it back after.
class WithoutEnv {
public:
  explicit WithoutEnv(const char *name) : name_(name) {
    if (const char *value = std::getenv(name)) {
      saved_ = value;
      ::unsetenv(name);
    }
  }
  ~WithoutEnv() {
    if (saved_)
      ::setenv(name_, saved_->c_str(), 1);
  }

private:
  const char *name_;
  std::optional<std::string> saved_;
};

TEST(InterpGemm, SameBitsOnEveryThreadCount) {
  cli_test::ScratchDir dir;
  // The child runs the one disabled test; under CTest shards (TICO_UNIT_TEST_SHARDS) it would
  // inherit this process's shard and might run nothing.
  const WithoutEnv no_total("GTEST_TOTAL_SHARDS"), no_index("GTEST_SHARD_INDEX");
  std::set<std::string> digests;
  const char *outer = std::getenv("TICO_INTERPRETER_THREADS");
  const std::string saved = outer != nullptr ? outer : "";
  for (const char *threads : {"1", "2", "3"}) {
    ::setenv("TICO_INTERPRETER_THREADS", threads, 1);
    const cli_test::ToolResult r =
        cli_test::runTool("/proc/self/exe",
                          {"--gtest_also_run_disabled_tests", "--gtest_filter=InterpGemm.DISABLED_PrintsDigestOfProducts"},
                          dir.path(), std::chrono::seconds(120));
    if (outer != nullptr)
      ::setenv("TICO_INTERPRETER_THREADS", saved.c_str(), 1);
    else
      ::unsetenv("TICO_INTERPRETER_THREADS");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::smatch match;
    ASSERT_TRUE(std::regex_search(r.output, match, std::regex("GEMM_DIGEST ([0-9a-f]+)"))) << r.output;
    digests.insert(match[1]);
  }
  EXPECT_EQ(digests.size(), 1u) << "the product's bits depend on the thread count";
}

} // namespace
} // namespace tico::interp
