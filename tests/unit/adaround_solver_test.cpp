// AdaRound on the layer Hessian (plugins/quant-gptq/solver/adaround.h): learned rounding lowers
// the output error below round-to-nearest where inputs are correlated, keeps round-to-nearest
// where they are not, and only ever picks the floor or the ceiling of each weight.
#include "adaround.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tico::gptq {
namespace {

Eigen::MatrixXf normal(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  Eigen::MatrixXf m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i)
    m.data()[i] = dist(rng);
  return m;
}

// H of `samples` inputs whose features are mixed (strongly correlated columns).
Eigen::MatrixXd correlated(Eigen::Index columns, Eigen::Index samples, unsigned seed) {
  const Eigen::MatrixXf mixing = normal(columns, columns, seed);
  const RowMajorMatrixXf x = normal(samples, columns, seed + 1) * mixing.transpose();
  HessianAccumulator h(columns);
  h.addBatch(x);
  return h.hessian();
}

Grid grid4(const Eigen::MatrixXf &W) {
  GridOptions options;
  options.bits = 4;
  return fitGrid(W, options);
}

void expectFloorOrCeil(const Eigen::MatrixXf &W, const Grid &grid, const CodeMatrix &codes) {
  for (Eigen::Index r = 0; r < W.rows(); ++r)
    for (Eigen::Index k = 0; k < W.cols(); ++k) {
      const float x = std::floor(W(r, k) / grid.scale[r]) + grid.zero[r];
      const int32_t lo = static_cast<int32_t>(std::clamp(x, 0.0f, static_cast<float>(grid.maxCode())));
      const int32_t hi = static_cast<int32_t>(std::clamp(x + 1.0f, 0.0f, static_cast<float>(grid.maxCode())));
      ASSERT_TRUE(codes(r, k) == lo || codes(r, k) == hi) << r << "," << k << ": " << codes(r, k);
    }
}

TEST(AdaRound, BeatsRoundToNearestOnCorrelatedInputs) {
  const Eigen::MatrixXf W = normal(16, 64, 1) * 0.05f;
  const Eigen::MatrixXd H = correlated(64, 512, 2);
  const Grid grid = grid4(W);
  AdaRoundOptions options;
  options.iterations = 600;
  const AdaRoundResult result = adaround(W, grid, H, 512, options);
  expectFloorOrCeil(W, grid, result.codes);
  EXPECT_GT(result.flipped, 0);
  // The learned rounding's output error, against round-to-nearest's on the same grid.
  EXPECT_LT(result.final_error, 0.8 * result.initial_error)
      << result.final_error << " vs " << result.initial_error;
  EXPECT_NEAR(result.final_error, layerError(W, result.dequantized, H), 1e-6 * result.initial_error);
  for (Eigen::Index r = 0; r < W.rows(); ++r)
    for (Eigen::Index k = 0; k < W.cols(); ++k)
      EXPECT_EQ(result.dequantized(r, k), grid.dequantize(r, result.codes(r, k)));
}

TEST(AdaRound, KeepsRoundToNearestWhenInputsAreIndependent) {
  // A diagonal H makes the error separable, sum_j H_jj dW_j^2: the nearest code is optimal for
  // every weight, and the learned rounding must find it again.
  const Eigen::MatrixXf W = normal(8, 32, 3) * 0.05f;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(32, 32);
  for (Eigen::Index j = 0; j < 32; ++j)
    H(j, j) = 1.0 + j;
  const Grid grid = grid4(W);
  AdaRoundOptions options;
  options.iterations = 400;
  const AdaRoundResult result = adaround(W, grid, H, 1, options);
  EXPECT_LE(result.final_error, result.initial_error * (1 + 1e-6));
  EXPECT_LE(result.flipped, 2);  // a weight exactly between two codes may go either way
}

TEST(AdaRound, NoIterationsIsRoundToNearest) {
  const Eigen::MatrixXf W = normal(4, 16, 4);
  const Grid grid = grid4(W);
  AdaRoundOptions options;
  options.iterations = 0;
  const AdaRoundResult result = adaround(W, grid, correlated(16, 64, 5), 64, options);
  EXPECT_EQ(result.flipped, 0);
  EXPECT_EQ(result.codes, quantizeRtn(W, grid));
  EXPECT_DOUBLE_EQ(result.final_error, result.initial_error);
}

TEST(AdaRound, RejectsBadInput) {
  const Eigen::MatrixXf W = normal(4, 8, 6);
  const Grid grid = grid4(W);
  const Eigen::MatrixXd H = Eigen::MatrixXd::Identity(8, 8);
  EXPECT_THROW(adaround(W, grid, Eigen::MatrixXd::Identity(7, 7), 1, {}), std::invalid_argument);
  EXPECT_THROW(adaround(W, grid4(normal(3, 8, 7)), H, 1, {}), std::invalid_argument);
  EXPECT_THROW(adaround(W, grid, H, 0, {}), std::invalid_argument);
  AdaRoundOptions bad;
  bad.warmup = 1.0;
  EXPECT_THROW(adaround(W, grid, H, 1, bad), std::invalid_argument);
  Eigen::MatrixXf with_nan = W;
  with_nan(0, 0) = std::nanf("");
  EXPECT_THROW(adaround(with_nan, grid, H, 1, {}), std::invalid_argument);
}

} // namespace
} // namespace tico::gptq
