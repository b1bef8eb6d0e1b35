// Interpreter: FULLY_CONNECTED and BATCH_MATMUL. Small cases are computed by hand; large ones
// (blocked and threaded paths) against a plain triple loop in double precision written here.
#include "interp_test_support.h"

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

// out[m, n] = sum_k a[m, k] * w[n, k] (+ bias[n]), in double.
std::vector<float> referenceLinear(const std::vector<float> &a, const std::vector<float> &w,
                                   const std::vector<float> &bias, int64_t M, int64_t N, int64_t K) {
  std::vector<float> out(static_cast<std::size_t>(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = bias.empty() ? 0.0 : bias[static_cast<std::size_t>(n)];
      for (int64_t k = 0; k < K; ++k)
        sum += static_cast<double>(a[static_cast<std::size_t>(m * K + k)]) * w[static_cast<std::size_t>(n * K + k)];
      out[static_cast<std::size_t>(m * N + n)] = static_cast<float>(sum);
    }
  return out;
}

circle::BuiltinOptionsUnion fcOptions(bool keep_num_dims,
                                      circle::ActivationFunctionType act = circle::ActivationFunctionType::NONE) {
  circle::FullyConnectedOptionsT options;
  options.keep_num_dims = keep_num_dims;
  options.fused_activation_function = act;
  return ModelBuilder::options(options);
}

TEST(InterpFullyConnected, KeepNumDimsKeepsLeadingDims) {
  // x [2, 1, 3], W [2, 3], b [2]: rows (1,2,3) and (4,5,6); W rows (1,0,1), (0,1,-1)
  auto x = f32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto w = f32({2, 3}, {1, 0, 1, 0, 1, -1});
  auto b = f32({2}, {10, 20});
  auto out = runSingle({B::FULLY_CONNECTED, fcOptions(true), {x, w, b}}).at(0);
  expectShape(*out, {2, 1, 2});
  expectFloats(*out, {14, 19, 20, 19});
}

TEST(InterpFullyConnected, WithoutKeepNumDimsFlattensAndBiasMayBeOmitted) {
  auto x = f32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto w = f32({2, 3}, {1, 0, 1, 0, 1, -1});
  auto out = runSingle({B::FULLY_CONNECTED, fcOptions(false), {x, w, nullptr}}).at(0);
  expectShape(*out, {2, 2});
  expectFloats(*out, {4, -1, 10, -1});
}

TEST(InterpFullyConnected, FusedReluAndMismatchedWeights) {
  auto x = f32({1, 3}, {1, 2, 3});
  auto w = f32({2, 3}, {1, 0, 1, 0, 1, -1});
  expectFloats(*runSingle({B::FULLY_CONNECTED, fcOptions(true, circle::ActivationFunctionType::RELU), {x, w, nullptr}})
                    .at(0),
               {4, 0});
  auto bad = f32({2, 4}, std::vector<float>(8, 1.0f));
  const std::string message =
      errorOf([&] { runSingle({B::FULLY_CONNECTED, fcOptions(true), {x, bad, nullptr}}); });
  EXPECT_TRUE(contains(message, "FULLY_CONNECTED")) << message;
  EXPECT_TRUE(contains(message, "[1, 3]")) << message;
}

TEST(InterpFullyConnected, LargeProductMatchesAReferenceLoop) {
  // Sizes that exercise K blocks (>512), N blocks (>64), tails in every direction and threads.
  const int64_t M = 37, N = 131, K = 1030;
  const auto a = randomFloats(static_cast<std::size_t>(M * K), 1);
  const auto w = randomFloats(static_cast<std::size_t>(N * K), 2);
  const auto bias = randomFloats(static_cast<std::size_t>(N), 3);
  auto out = runSingle({B::FULLY_CONNECTED, fcOptions(true), {f32({M, K}, a), f32({N, K}, w), f32({N}, bias)}}).at(0);
  // The reference sums in fp64, the kernel in fp32 in its own blocking order: over K = 1030
  // products of magnitude ~0.25 the fp32 rounding walk is ~sqrt(K) * eps * 8 ~ 1.5e-5, and how
  // much of it shows depends on the machine's kernel (1.17e-5 on an AVX2-only CPU, under 1e-5
  // with AVX-512). PyTorch's own float32 product differs from fp64 as much.
  expectFloats(*out, referenceLinear(a, w, bias, M, N, K), 3e-5f);
}

TEST(InterpFullyConnected, SingleRowMatrixVectorProduct) {
  const int64_t N = 300, K = 257;
  const auto a = randomFloats(static_cast<std::size_t>(K), 4);
  const auto w = randomFloats(static_cast<std::size_t>(N * K), 5);
  auto out = runSingle({B::FULLY_CONNECTED, fcOptions(true), {f32({1, 1, K}, a), f32({N, K}, w), nullptr}}).at(0);
  expectShape(*out, {1, 1, N});
  expectFloats(*out, referenceLinear(a, w, {}, 1, N, K), 1e-5f);
}

circle::BuiltinOptionsUnion bmmOptions(bool adj_lhs, bool adj_rhs) {
  circle::BatchMatMulOptionsT options;
  options.adjoint_lhs = adj_lhs;
  options.adjoint_rhs = adj_rhs;
  return ModelBuilder::options(options);
}

TEST(InterpBatchMatMul, PlainProduct) {
  // [[1,2],[3,4]] @ [[5,6,7],[8,9,10]] = [[21,24,27],[47,54,61]]
  auto a = f32({2, 2}, {1, 2, 3, 4});
  auto b = f32({2, 3}, {5, 6, 7, 8, 9, 10});
  auto out = runSingle({B::BATCH_MATMUL, bmmOptions(false, false), {a, b}}).at(0);
  expectShape(*out, {2, 3});
  expectFloats(*out, {21, 24, 27, 47, 54, 61});
}

TEST(InterpBatchMatMul, AdjointFlagsTransposeTheOperands) {
  // lhs^T with lhs = [[1,3],[2,4]] is [[1,2],[3,4]]; rhs^T with rhs [3, 2] = [[5,8],[6,9],[7,10]]
  auto lhs_t = f32({2, 2}, {1, 3, 2, 4});
  auto rhs_t = f32({3, 2}, {5, 8, 6, 9, 7, 10});
  expectFloats(*runSingle({B::BATCH_MATMUL, bmmOptions(true, true), {lhs_t, rhs_t}}).at(0), {21, 24, 27, 47, 54, 61});
  auto a = f32({2, 2}, {1, 2, 3, 4});
  expectFloats(*runSingle({B::BATCH_MATMUL, bmmOptions(false, true), {a, rhs_t}}).at(0), {21, 24, 27, 47, 54, 61});
}

TEST(InterpBatchMatMul, AdjointOperandsAcrossProductTilesMatchAReferenceLoop) {
  // M and N above the 128-wide product tiles, so tiles start inside a transposed operand; a
  // broadcast lhs batch; every combination of adjoint flags against one reference.
  const int64_t batches = 2, M = 150, N = 140, K = 33;
  const auto a = randomFloats(static_cast<std::size_t>(M * K), 31);            // lhs [M, K], one batch
  const auto b = randomFloats(static_cast<std::size_t>(batches * K * N), 32);  // rhs [2, K, N]
  auto transposed = [](const std::vector<float> &x, int64_t count, int64_t rows, int64_t cols) {
    std::vector<float> t(x.size());
    for (int64_t g = 0; g < count; ++g)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          t[static_cast<std::size_t>(g * rows * cols + c * rows + r)] = x[static_cast<std::size_t>(g * rows * cols + r * cols + c)];
    return t;
  };
  std::vector<float> expected;
  for (int64_t g = 0; g < batches; ++g)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += static_cast<double>(a[static_cast<std::size_t>(m * K + k)]) * b[static_cast<std::size_t>(g * K * N + k * N + n)];
        expected.push_back(static_cast<float>(sum));
      }
  for (bool adj_lhs : {false, true})
    for (bool adj_rhs : {false, true}) {
      SCOPED_TRACE(std::string("adjoint lhs ") + (adj_lhs ? "yes" : "no") + ", rhs " + (adj_rhs ? "yes" : "no"));
      auto lhs = adj_lhs ? f32({1, K, M}, transposed(a, 1, M, K)) : f32({1, M, K}, a);
      auto rhs = adj_rhs ? f32({batches, N, K}, transposed(b, batches, K, N)) : f32({batches, K, N}, b);
      auto out = runSingle({B::BATCH_MATMUL, bmmOptions(adj_lhs, adj_rhs), {lhs, rhs}}).at(0);
      expectShape(*out, {batches, M, N});
      expectFloats(*out, expected, 1e-5f);
    }
}

TEST(InterpBatchMatMul, BatchDimsBroadcast) {
  // lhs [2, 1, 2, 3], rhs [3, 3, 2] -> [2, 3, 2, 2]
  const auto a = randomFloats(12, 11);
  const auto b = randomFloats(18, 12);
  auto out = runSingle({B::BATCH_MATMUL, bmmOptions(false, false), {f32({2, 1, 2, 3}, a), f32({3, 3, 2}, b)}}).at(0);
  expectShape(*out, {2, 3, 2, 2});
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int m = 0; m < 2; ++m)
        for (int n = 0; n < 2; ++n) {
          double sum = 0;
          for (int k = 0; k < 3; ++k)
            sum += static_cast<double>(a[static_cast<std::size_t>(i * 6 + m * 3 + k)]) *
                   b[static_cast<std::size_t>(j * 6 + k * 2 + n)];
          expected.push_back(static_cast<float>(sum));
        }
  expectFloats(*out, expected);
}

TEST(InterpBatchMatMul, ManySmallBatchesAndOneLargeBatch) {
  for (auto [batches, M, N, K] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{64, 5, 7, 9}, {1, 70, 90, 600}}) {
    const auto a = randomFloats(static_cast<std::size_t>(batches * M * K), 21);
    const auto b = randomFloats(static_cast<std::size_t>(batches * K * N), 22);
    auto out =
        runSingle({B::BATCH_MATMUL, bmmOptions(false, false), {f32({batches, M, K}, a), f32({batches, K, N}, b)}})
            .at(0);
    std::vector<float> expected;
    for (int64_t g = 0; g < batches; ++g)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double sum = 0;
          for (int64_t k = 0; k < K; ++k)
            sum += static_cast<double>(a[static_cast<std::size_t>((g * M + m) * K + k)]) *
                   b[static_cast<std::size_t>((g * K + k) * N + n)];
          expected.push_back(static_cast<float>(sum));
        }
    expectFloats(*out, expected, 1e-5f);
  }
}

TEST(InterpBatchMatMul, ContractionMismatchNamesBothShapes) {
  auto a = f32({2, 3}, std::vector<float>(6, 1));
  auto b = f32({2, 3}, std::vector<float>(6, 1));
  const std::string message = errorOf([&] { runSingle({B::BATCH_MATMUL, bmmOptions(false, false), {a, b}}); });
  EXPECT_TRUE(contains(message, "BATCH_MATMUL")) << message;
  EXPECT_TRUE(contains(message, "[2, 3]")) << message;
}

} // namespace
} // namespace tico
