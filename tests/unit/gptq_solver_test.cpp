// The GPTQ solver's invariants (quantization reference §2.4): properties any correct GPTQ has,
// checked against independent computations (round-to-nearest, explicit OBS elimination, the
// closed-form optimal compensation), never against recorded outputs.
#include "gptq_solver.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

namespace {

using namespace tico::gptq;

Eigen::MatrixXf gaussian(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Eigen::MatrixXf m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i)
      m(i, j) = normal(rng);
  return m;
}

// Calibration inputs with correlated features, X = A Z (samples as rows: Z^T A^T), and their H.
Eigen::MatrixXd correlatedHessian(Eigen::Index columns, Eigen::Index samples, unsigned seed) {
  const Eigen::MatrixXf mixing = gaussian(columns, columns, seed);
  const RowMajorMatrixXf inputs = gaussian(samples, columns, seed + 1) * mixing.transpose();
  HessianAccumulator accumulator(columns);
  accumulator.addBatch(inputs);
  return accumulator.hessian();
}

Options options4bit(bool act_order) {
  Options options;
  options.grid.bits = 4;
  options.act_order = act_order;
  return options;
}

float maxAbsDiff(const Eigen::MatrixXf &a, const Eigen::MatrixXf &b) { return (a - b).cwiseAbs().maxCoeff(); }

Eigen::Index mismatches(const CodeMatrix &a, const CodeMatrix &b) { return (a.array() != b.array()).count(); }

double dampOf(const Eigen::MatrixXd &H, double percdamp) { return percdamp * H.diagonal().mean(); }

// (1) The block size only batches updates.
TEST(GptqSolver, BlockSizeDoesNotChangeTheResult) {
  const Eigen::MatrixXf W = gaussian(24, 150, 1);
  const Eigen::MatrixXd H = correlatedHessian(150, 400, 2);
  for (const int group_size : {-1, 32}) {
    Options options = options4bit(true);
    options.group_size = group_size;
    options.block_size = 128;
    const Result reference = quantize(W, H, options);
    for (const int block_size : {1, 7}) {
      options.block_size = block_size;
      const Result other = quantize(W, H, options);
      EXPECT_LE(maxAbsDiff(other.dequantized, reference.dequantized), 1e-5f)
          << "block " << block_size << " group " << group_size;
      EXPECT_EQ(mismatches(other.codes, reference.codes), 0) << "block " << block_size << " group " << group_size;
    }
  }
}

// (2) Dampening is relative to mean(diag H): a positive factor on H changes nothing.
TEST(GptqSolver, ScalingTheHessianDoesNotChangeTheResult) {
  const Eigen::MatrixXf W = gaussian(16, 64, 3);
  const Eigen::MatrixXd H = correlatedHessian(64, 256, 4);
  const Result reference = quantize(W, H, options4bit(true));
  for (const double factor : {1e-3, 7.0, 1e4}) {
    const Result scaled = quantize(W, factor * H, options4bit(true));
    EXPECT_LE(maxAbsDiff(scaled.dequantized, reference.dequantized), 1e-5f) << "factor " << factor;
    EXPECT_EQ(mismatches(scaled.codes, reference.codes), 0) << "factor " << factor;
  }
}

// (3) Without correlations between inputs there is nothing to compensate: GPTQ is RTN.
TEST(GptqSolver, DiagonalHessianGivesRoundToNearest) {
  const Eigen::MatrixXf W = gaussian(12, 40, 5);
  const CodeMatrix rtn = quantizeRtn(W, fitGrid(W, GridOptions{}));
  Eigen::VectorXd distinct(40);
  for (Eigen::Index i = 0; i < 40; ++i)
    distinct(i) = 0.5 + 0.37 * static_cast<double>((i * 17) % 40);  // distinct: act_order reorders
  for (const bool act_order : {false, true}) {
    const Result identity = quantize(W, Eigen::MatrixXd::Identity(40, 40), options4bit(act_order));
    EXPECT_EQ(mismatches(identity.codes, rtn), 0) << "act_order " << act_order;
    const Result diagonal = quantize(W, distinct.asDiagonal().toDenseMatrix(), options4bit(act_order));
    EXPECT_EQ(mismatches(diagonal.codes, rtn), 0) << "act_order " << act_order;
  }
}

// (4) GPTQ lowers the layer's output error where inputs are correlated.
TEST(GptqSolver, LowersLayerErrorBelowRoundToNearest) {
  for (unsigned seed = 10; seed < 15; ++seed) {
    const Eigen::MatrixXf W = gaussian(16, 64, seed);
    const Eigen::MatrixXd H = correlatedHessian(64, 256, seed + 100);
    const Result gptq = quantize(W, H, options4bit(seed % 2 == 0));
    const Grid grid = fitGrid(W, GridOptions{});
    Eigen::MatrixXf rtn(W.rows(), W.cols());
    const CodeMatrix codes = quantizeRtn(W, grid);
    for (Eigen::Index r = 0; r < W.rows(); ++r)
      for (Eigen::Index k = 0; k < W.cols(); ++k)
        rtn(r, k) = grid.dequantize(r, codes(r, k));
    EXPECT_LE(layerError(W, gptq.dequantized, H), layerError(W, rtn, H)) << "seed " << seed;
  }
}

TEST(GptqSolver, LayerErrorRatioOnA512x512Layer) {
  const Eigen::MatrixXf W = gaussian(512, 512, 42);
  const Eigen::MatrixXd H = correlatedHessian(512, 2048, 43);
  const Result gptq = quantize(W, H, options4bit(true));
  const Grid grid = fitGrid(W, GridOptions{});
  const CodeMatrix codes = quantizeRtn(W, grid);
  Eigen::MatrixXf rtn(W.rows(), W.cols());
  for (Eigen::Index r = 0; r < W.rows(); ++r)
    for (Eigen::Index k = 0; k < W.cols(); ++k)
      rtn(r, k) = grid.dequantize(r, codes(r, k));
  const double ratio = layerError(W, gptq.dequantized, H) / layerError(W, rtn, H);
  std::printf("GPTQ/RTN layer error, 512x512 4-bit per-channel asymmetric: %.4f\n", ratio);
  RecordProperty("gptq_rtn_ratio", std::to_string(ratio));
  EXPECT_LE(ratio, 0.8);
}

// (5) act_order is only a column permutation: doing it by hand gives the same codes.
TEST(GptqSolver, ActOrderEqualsExplicitPermutation) {
  const Eigen::MatrixXf W = gaussian(10, 48, 6);
  const Eigen::MatrixXd H = correlatedHessian(48, 200, 7);
  const Result ordered = quantize(W, H, options4bit(true));
  ASSERT_EQ(ordered.order.size(), 48u);
  Eigen::MatrixXf permuted_weights(W.rows(), W.cols());
  Eigen::MatrixXd permuted_hessian(48, 48);
  for (Eigen::Index j = 0; j < 48; ++j) {
    permuted_weights.col(j) = W.col(ordered.order[j]);
    for (Eigen::Index i = 0; i < 48; ++i)
      permuted_hessian(i, j) = H(ordered.order[i], ordered.order[j]);
  }
  for (Eigen::Index j = 1; j < 48; ++j)
    EXPECT_GE(permuted_hessian(j - 1, j - 1), permuted_hessian(j, j));  // decreasing diag(H)
  const Result manual = quantize(permuted_weights, permuted_hessian, options4bit(false));
  for (Eigen::Index j = 0; j < 48; ++j)
    for (Eigen::Index r = 0; r < W.rows(); ++r)
      EXPECT_EQ(manual.codes(r, j), ordered.codes(r, ordered.order[j]));
}

// (6) An input feature that is always zero.
TEST(GptqSolver, DeadColumnIsRoundedToNearest) {
  const Eigen::MatrixXf W = gaussian(8, 20, 8);
  RowMajorMatrixXf inputs = gaussian(100, 20, 9) * gaussian(20, 20, 10);
  inputs.col(5).setZero();
  HessianAccumulator accumulator(20);
  accumulator.addBatch(inputs);
  const Eigen::MatrixXd H = accumulator.hessian();
  const CodeMatrix rtn = quantizeRtn(W, fitGrid(W, GridOptions{}));
  for (const bool act_order : {false, true}) {
    const Result result = quantize(W, H, options4bit(act_order));
    ASSERT_EQ(result.dead_columns, std::vector<Eigen::Index>{5});
    EXPECT_TRUE(result.dequantized.allFinite());
    EXPECT_TRUE(std::isfinite(result.loss));
    for (Eigen::Index r = 0; r < W.rows(); ++r)
      EXPECT_EQ(result.codes(r, 5), rtn(r, 5));
  }
  // With groups (which the original refuses): nearest code on the column's group grid.
  for (const bool static_groups : {false, true}) {
    Options options = options4bit(true);
    options.group_size = 8;
    options.static_groups = static_groups;
    const Result result = quantize(W, H, options);
    EXPECT_TRUE(result.dequantized.allFinite());
    const Grid &grid = result.grids[result.group_of_column[5]];
    for (Eigen::Index r = 0; r < W.rows(); ++r)
      EXPECT_EQ(result.codes(r, 5), grid.code(r, W(r, 5))) << "static " << static_groups;
  }
}

// (7) Dynamic groups: each grid is fitted to the weights after the error feedback of all earlier
// columns. Those weights are computed independently here: given the quantized prefix, GPTQ's
// sequential OBS updates equal the optimal compensation W_rest + (W_done - Q_done) H_dr H_rr^-1
// on the dampened H.
TEST(GptqSolver, DynamicGroupGridsAreRefittedFromUpdatedWeights) {
  const Eigen::Index c = 96, gs = 32;
  const Eigen::MatrixXf W = gaussian(12, c, 11);
  const Eigen::MatrixXd H = correlatedHessian(c, 300, 12);
  Options options = options4bit(false);
  options.group_size = gs;
  options.block_size = 128;  // groups start inside blocks
  const Result result = quantize(W, H, options);
  ASSERT_EQ(result.grids.size(), 3u);
  EXPECT_TRUE(result.contiguousGroups());

  Eigen::MatrixXd damped = H;
  damped.diagonal().array() += dampOf(H, options.percdamp);
  for (Eigen::Index g = 0; g < 3; ++g) {
    const Eigen::Index k = g * gs;
    Eigen::MatrixXd updated = W.rightCols(c - k).cast<double>();
    if (k > 0) {
      const Eigen::MatrixXd done_error = (W.leftCols(k) - result.dequantized.leftCols(k)).cast<double>();
      const Eigen::MatrixXd rest_inverse = damped.bottomRightCorner(c - k, c - k).inverse();
      updated += done_error * damped.topRightCorner(k, c - k) * rest_inverse;
    }
    const Eigen::MatrixXf group = updated.leftCols(gs).cast<float>();
    const Grid expected = fitGrid(group, options.grid);
    for (Eigen::Index r = 0; r < W.rows(); ++r) {
      EXPECT_NEAR(result.grids[g].scale[r], expected.scale[r], 1e-4f * expected.scale[r]) << "group " << g;
      EXPECT_EQ(result.grids[g].zero[r], expected.zero[r]) << "group " << g << " row " << r;
    }
  }

  // The original refits from the weights as they were at the block start: different grids
  // for the groups that start inside a block, identical for the first.
  options.exact_group_refit = false;
  const Result legacy = quantize(W, H, options);
  EXPECT_EQ(legacy.grids[0].scale, result.grids[0].scale);
  EXPECT_NE(legacy.grids[1].scale, result.grids[1].scale);
}

TEST(GptqSolver, StaticGroupGridsAreRoundToNearestGridsOfTheOriginalWeights) {
  const Eigen::Index c = 80, gs = 32;  // the last group is shorter
  const Eigen::MatrixXf W = gaussian(9, c, 13);
  const Eigen::MatrixXd H = correlatedHessian(c, 300, 14);
  Options options = options4bit(true);
  options.group_size = gs;
  options.static_groups = true;
  const Result result = quantize(W, H, options);
  ASSERT_EQ(result.grids.size(), 3u);
  EXPECT_TRUE(result.contiguousGroups());
  for (Eigen::Index g = 0; g < 3; ++g) {
    const Eigen::Index start = g * gs;
    const Grid expected = fitGrid(W.middleCols(start, std::min(gs, c - start)), options.grid);
    EXPECT_EQ(result.grids[g].scale, expected.scale);
    EXPECT_EQ(result.grids[g].zero, expected.zero);
  }
  for (Eigen::Index k = 0; k < c; ++k)
    EXPECT_EQ(result.group_of_column[k], k / gs);

  // Dynamic groups under act_order follow the processing order: not contiguous, not Circle.
  options.static_groups = false;
  const Result dynamic = quantize(W, H, options);
  EXPECT_FALSE(dynamic.contiguousGroups());
  EXPECT_THROW(toCircle(dynamic, false), std::invalid_argument);
}

// (9) With a fixed grid, GPTQ is exactly OBS with sequential elimination of the inverse; using
// rows of the raw H^-1 instead is the likeliest implementation slip and must give other codes.
TEST(GptqSolver, FixedGridCodesEqualExplicitObsElimination) {
  const Eigen::Index rows = 8, c = 16;
  const Eigen::MatrixXf W = gaussian(rows, c, 15);
  const Eigen::MatrixXd H = correlatedHessian(c, 64, 16);
  const Options options = options4bit(false);
  const Result gptq = quantize(W, H, options);
  const Grid &grid = gptq.grids.front();

  Eigen::MatrixXd damped = H;
  damped.diagonal().array() += dampOf(H, options.percdamp);
  const Eigen::MatrixXd inverse = damped.inverse();

  const auto obs = [&](bool eliminate) {
    Eigen::MatrixXd weights = W.cast<double>();
    Eigen::MatrixXd hinv = inverse;
    CodeMatrix codes(rows, c);
    for (Eigen::Index j = 0; j < c; ++j) {
      for (Eigen::Index r = 0; r < rows; ++r) {
        codes(r, j) = grid.code(r, static_cast<float>(weights(r, j)));
        const double error = (weights(r, j) - grid.dequantize(r, codes(r, j))) / hinv(j, j);
        weights.row(r) -= error * hinv.row(j);
      }
      if (eliminate) {
        const Eigen::VectorXd column = hinv.col(j);
        hinv -= column * hinv.row(j) / hinv(j, j);
      }
    }
    return codes;
  };
  EXPECT_EQ(mismatches(obs(true), gptq.codes), 0);
  EXPECT_GT(mismatches(obs(false), gptq.codes), 0);
}

TEST(GptqSolver, RejectsBadOptionsAndShapes) {
  const Eigen::MatrixXf W = gaussian(4, 6, 17);
  const Eigen::MatrixXd H = correlatedHessian(6, 30, 18);
  for (const double percdamp : {0.0, -0.01, 1.5, std::nan("")}) {
    Options options;
    options.percdamp = percdamp;
    EXPECT_THROW(quantize(W, H, options), std::invalid_argument) << percdamp;
  }
  Options options;
  options.percdamp = 1.0;
  EXPECT_NO_THROW(quantize(W, H, options));
  options = Options{};
  options.group_size = 0;
  EXPECT_THROW(quantize(W, H, options), std::invalid_argument);
  options = Options{};
  options.grid.bits = 17;
  EXPECT_THROW(quantize(W, H, options), std::invalid_argument);
  EXPECT_THROW(quantize(W, Eigen::MatrixXd::Identity(5, 5), Options{}), std::invalid_argument);
  Eigen::MatrixXf with_nan = W;
  with_nan(1, 2) = std::nanf("");
  EXPECT_THROW(quantize(with_nan, H, Options{}), std::invalid_argument);
}

TEST(GptqSolver, NonPositiveDefiniteHessianIsAClearErrorWithoutRetries) {
  Eigen::MatrixXd indefinite(2, 2);
  indefinite << 1.0, 3.0, 3.0, 1.0;  // eigenvalues 4 and -2: dampening by 1 % does not help
  Options options;
  options.label = "model.fc1";
  options.damping_retries = 0;
  try {
    quantize(gaussian(3, 2, 19), indefinite, options);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("model.fc1"), std::string::npos) << message;
    EXPECT_NE(message.find("2 input columns"), std::string::npos) << message;
    EXPECT_NE(message.find("not positive definite"), std::string::npos) << message;
    EXPECT_NE(message.find("raise percdamp"), std::string::npos) << message;
  }
  // Two increases (0.01 -> 0.1 -> 1) are not enough either: diag 2 against off-diagonal 3.
  options.damping_retries = 2;
  try {
    quantize(gaussian(3, 2, 19), indefinite, options);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("after 2 tenfold increases"), std::string::npos) << e.what();
  }
}

TEST(GptqSolver, DampeningIsRaisedUntilTheHessianFactors) {
  Eigen::MatrixXd indefinite(2, 2);
  indefinite << 1.0, 3.0, 3.0, 1.0;
  const Eigen::MatrixXf W = gaussian(3, 2, 19);
  const Result result = quantize(W, indefinite, Options{});
  // 0.01, 0.1 and 1 fail (1 + p must exceed 3); 10 is the first that factors.
  EXPECT_EQ(result.damping_retries, 3);
  EXPECT_DOUBLE_EQ(result.percdamp, 0.01 * 10 * 10 * 10);
  EXPECT_TRUE(result.dequantized.allFinite());
  const Result healthy = quantize(W, correlatedHessian(2, 64, 5), Options{});
  EXPECT_EQ(healthy.damping_retries, 0);
  EXPECT_DOUBLE_EQ(healthy.percdamp, 0.01);
}

TEST(GptqGrid, EdgeCases) {
  Eigen::MatrixXf W(4, 5);
  W.row(0).setConstant(0.5f);    // constant positive row: range [0, 0.5]
  W.row(1).setZero();            // all zero: range [-1, 1]
  W.row(2).setConstant(-2.0f);   // constant negative row: range [-2, 0]
  W.row(3) << -1.0f, -0.5f, 0.0f, 0.75f, 3.0f;
  const Grid grid = fitGrid(W, GridOptions{});
  EXPECT_FLOAT_EQ(grid.scale[0], 0.5f / 15.0f);
  EXPECT_EQ(grid.zero[0], 0.0f);
  EXPECT_FLOAT_EQ(grid.scale[1], 2.0f / 15.0f);
  EXPECT_EQ(grid.zero[1], 7.0f);  // 1 / (2/15) is 7.4999995 in fp32 (torch rounds it to 7 too)
  EXPECT_FLOAT_EQ(grid.scale[2], 2.0f / 15.0f);
  EXPECT_EQ(grid.zero[2], 15.0f);
  EXPECT_FLOAT_EQ(grid.scale[3], 4.0f / 15.0f);
  EXPECT_EQ(grid.zero[3], 4.0f);  // round(3.75)
  for (Eigen::Index k = 0; k < 5; ++k) {
    EXPECT_NEAR(grid.fakeQuantize(0, W(0, k)), 0.5f, 1e-6f);
    EXPECT_EQ(grid.fakeQuantize(1, 0.0f), 0.0f);  // zero is exact on every grid
    EXPECT_NEAR(grid.fakeQuantize(2, W(2, k)), -2.0f, 1e-6f);
    EXPECT_LE(std::fabs(grid.fakeQuantize(3, W(3, k)) - W(3, k)), grid.scale[3] / 2 + 1e-6f);
  }
  EXPECT_EQ(grid.code(3, 100.0f), 15);  // clamped
  EXPECT_EQ(grid.code(3, -100.0f), 0);

  GridOptions symmetric;
  symmetric.symmetric = true;
  const Grid sym = fitGrid(W, symmetric);
  EXPECT_FLOAT_EQ(sym.scale[3], 6.0f / 15.0f);  // [-3, 3]
  EXPECT_FLOAT_EQ(sym.scale[2], 4.0f / 15.0f);  // [-2, 2]
  EXPECT_FLOAT_EQ(sym.scale[0], 0.5f / 15.0f);  // no negatives: the original keeps [0, 0.5]
  for (Eigen::Index r = 0; r < 4; ++r)
    EXPECT_EQ(sym.zero[r], 8.0f);

  GridOptions per_tensor;
  per_tensor.per_channel = false;
  const Grid whole = fitGrid(W, per_tensor);
  for (Eigen::Index r = 0; r < 4; ++r) {
    EXPECT_FLOAT_EQ(whole.scale[r], 5.0f / 15.0f);  // [-2, 3]
    EXPECT_EQ(whole.zero[r], 6.0f);
  }
  EXPECT_THROW(fitGrid(Eigen::MatrixXf(0, 3), GridOptions{}), std::invalid_argument);
}

TEST(GptqGrid, MseSearchPicksAShrunkenRangeWithLessError) {
  const Eigen::MatrixXf W = gaussian(16, 256, 20);
  GridOptions minmax;
  GridOptions mse;
  mse.mse = true;
  const Grid plain = fitGrid(W, minmax);
  const Grid searched = fitGrid(W, mse);
  const auto error = [&](const Grid &g, Eigen::Index r) {
    double sum = 0.0;
    for (Eigen::Index k = 0; k < W.cols(); ++k)
      sum += std::pow(std::fabs(g.fakeQuantize(r, W(r, k)) - W(r, k)), 2.4);
    return sum;
  };
  int shrunk = 0;
  for (Eigen::Index r = 0; r < W.rows(); ++r) {
    EXPECT_LE(error(searched, r), error(plain, r)) << r;
    // Candidates are p * [min, max] with p = 1 - i/100, i < 80.
    const double shrink = searched.scale[r] / plain.scale[r];
    const double steps = (1.0 - shrink) * 100.0;
    EXPECT_NEAR(steps, std::round(steps), 1e-3) << r;
    EXPECT_GE(shrink, 0.2) << r;
    if (shrink < 1.0 - 1e-3) {
      ++shrunk;
      EXPECT_LT(error(searched, r), error(plain, r)) << r;
    }
  }
  // Gaussian rows: clipping the tails pays off at 4 bits.
  EXPECT_GT(shrunk, 8);
}

TEST(GptqGrid, WeightedSearchFollowsTheColumnsThatMatter) {
  // Row: 63 small weights and one outlier. With the outlier's column weighted 0 the search clips
  // it (only the small weights' error counts); weighted heavily, (nearly) the full range is kept:
  // the zero point's rounding can leave the top code above a slightly shrunken maximum.
  Eigen::MatrixXf W = gaussian(4, 64, 23) * 0.1f;
  W.col(5).setConstant(2.0f);
  GridOptions smse;
  smse.mse = true;
  smse.mse_norm = 2.0f;
  ColumnWeights ignore_outlier = ColumnWeights::Ones(64);
  ignore_outlier(5) = 0.0f;
  ColumnWeights outlier_matters = ColumnWeights::Ones(64);
  outlier_matters(5) = 1e6f;
  const Grid plain = fitGrid(W, GridOptions{});
  const Grid clipped = fitGrid(W, smse, ignore_outlier);
  const Grid kept = fitGrid(W, smse, outlier_matters);
  for (Eigen::Index r = 0; r < W.rows(); ++r) {
    EXPECT_LT(clipped.scale[r], 0.75f * plain.scale[r]) << r;
    EXPECT_GE(kept.scale[r], 0.97f * plain.scale[r]) << r;
    EXPECT_NEAR(kept.fakeQuantize(r, 2.0f), 2.0f, 0.02f) << r;
  }
  // Equal weights are the unweighted search with the same norm.
  const Grid unit = fitGrid(W, smse, ColumnWeights::Ones(64));
  const Grid unweighted = fitGrid(W, smse);
  EXPECT_EQ(unit.scale, unweighted.scale);
  EXPECT_EQ(unit.zero, unweighted.zero);
  // Per tensor: one weight per column applies to every row.
  GridOptions per_tensor = smse;
  per_tensor.per_channel = false;
  EXPECT_LT(fitGrid(W, per_tensor, ignore_outlier).scale[0], fitGrid(W, per_tensor, outlier_matters).scale[0]);
  EXPECT_THROW(fitGrid(W, smse, ColumnWeights::Ones(3)), std::invalid_argument);
  EXPECT_THROW(fitGrid(W, smse, -ColumnWeights::Ones(64)), std::invalid_argument);
}

TEST(GptqSolver, SensitivityWeightedSearchUsesTheHessianDiagonal) {
  const Eigen::MatrixXf W = gaussian(8, 48, 24);
  const Eigen::MatrixXd H = correlatedHessian(48, 400, 25);
  Options options = options4bit(false);
  options.grid.mse = true;
  options.sensitivity_weighted = true;
  const Result result = quantize(W, H, options);
  GridOptions expected_options = options.grid;
  expected_options.mse_norm = 2.0f;
  const Grid expected = fitGrid(W, expected_options, H.diagonal().cast<float>().eval());
  ASSERT_EQ(result.grids.size(), 1u);
  EXPECT_EQ(result.grids[0].scale, expected.scale);
  EXPECT_EQ(result.grids[0].zero, expected.zero);
  // Groups: each static group's grid is the weighted search on its own columns.
  options.group_size = 16;
  options.static_groups = true;
  const Result grouped = quantize(W, H, options);
  ASSERT_EQ(grouped.grids.size(), 3u);
  for (int g = 0; g < 3; ++g) {
    const Grid group = fitGrid(W.middleCols(16 * g, 16), expected_options, H.diagonal().segment(16 * g, 16).cast<float>().eval());
    EXPECT_EQ(grouped.grids[g].scale, group.scale) << g;
  }
}

TEST(GptqCircle, SignedCodesAndZeroPoints) {
  const Eigen::MatrixXf W = gaussian(6, 32, 21);
  const Eigen::MatrixXd H = correlatedHessian(32, 100, 22);
  Options options = options4bit(true);
  options.grid.symmetric = true;
  const Result sym = quantize(W, H, options);
  const CodeMatrix signed_codes = toSignedCodes(sym.codes, 4);
  EXPECT_GE(signed_codes.minCoeff(), -8);
  EXPECT_LE(signed_codes.maxCoeff(), 7);
  const CircleQuant as_signed = toCircle(sym, true);
  const CircleQuant as_unsigned = toCircle(sym, false);
  EXPECT_TRUE(as_signed.is_signed);
  EXPECT_FALSE(as_unsigned.is_signed);
  ASSERT_EQ(as_signed.scale.size(), 6u);
  for (Eigen::Index r = 0; r < 6; ++r) {
    EXPECT_EQ(as_signed.zero_point[r], 0);
    EXPECT_EQ(as_unsigned.zero_point[r], 8);
    for (Eigen::Index k = 0; k < 32; ++k) {
      const float from_signed = as_signed.scale[r] * static_cast<float>(signed_codes(r, k) - as_signed.zero_point[r]);
      const float from_unsigned = as_unsigned.scale[r] * static_cast<float>(sym.codes(r, k) - as_unsigned.zero_point[r]);
      EXPECT_EQ(from_signed, sym.dequantized(r, k));
      EXPECT_EQ(from_unsigned, sym.dequantized(r, k));
    }
  }

  options.grid.symmetric = false;
  options.group_size = 16;
  options.static_groups = true;
  const Result asym = quantize(W, H, options);
  EXPECT_THROW(toCircle(asym, true), std::invalid_argument);
  EXPECT_THROW(toCircle(asym.grids, -1, false), std::invalid_argument);  // two grids, no group size
  const CircleQuant grouped = toCircle(asym, false);
  EXPECT_EQ(grouped.group_size, 16);
  ASSERT_EQ(grouped.scale.size(), 12u);  // [6 rows][2 groups]
  for (Eigen::Index r = 0; r < 6; ++r)
    for (Eigen::Index g = 0; g < 2; ++g) {
      EXPECT_EQ(grouped.scale[r * 2 + g], asym.grids[g].scale[r]);
      EXPECT_EQ(grouped.zero_point[r * 2 + g], static_cast<int64_t>(asym.grids[g].zero[r]));
    }

  // Round-to-nearest grids report the same way.
  const CircleQuant rtn = toCircle({fitGrid(W, GridOptions{})}, -1, false);
  EXPECT_EQ(rtn.group_size, -1);
  EXPECT_EQ(rtn.scale, fitGrid(W, GridOptions{}).scale);
}

TEST(GptqHessian, AccumulatesTheSumOfOuterProductsInAnyBatching) {
  // Each chunk of up to 1024 samples is multiplied in float32 (oneDNN) and the chunks are summed
  // in fp64: within float32's relative precision of the exact sum (the original accumulates every
  // sample in float32). 2,500 samples take three chunks.
  const RowMajorMatrixXf X = gaussian(2500, 9, 23);
  const Eigen::MatrixXd expected = X.cast<double>().transpose() * X.cast<double>();
  HessianAccumulator whole(9);
  whole.addBatch(X, 1);
  EXPECT_LE((whole.hessian() - expected).cwiseAbs().maxCoeff(), 2e-6 * expected.cwiseAbs().maxCoeff());
  HessianAccumulator split(9);
  split.addBatch(X.topRows(1), 1);
  split.addBatch(X.middleRows(1, 2200), 1);
  split.addBatch(X.bottomRows(299).data(), 299, 1);
  EXPECT_LE((split.hessian() - expected).cwiseAbs().maxCoeff(), 2e-6 * expected.cwiseAbs().maxCoeff());
  EXPECT_EQ(split.sampleRows(), 2500);
  EXPECT_EQ(split.batchItems(), 3);
  EXPECT_EQ(split.hessian(), split.hessian().transpose());
  EXPECT_THROW(split.addBatch(RowMajorMatrixXf(2, 8)), std::invalid_argument);
}

RowMajorMatrixXf rows(std::initializer_list<std::initializer_list<float>> values) {
  RowMajorMatrixXf m(static_cast<Eigen::Index>(values.size()), static_cast<Eigen::Index>(values.begin()->size()));
  Eigen::Index i = 0;
  for (const auto &row : values) {
    Eigen::Index j = 0;
    for (const float v : row)
      m(i, j++) = v;
    ++i;
  }
  return m;
}

TEST(GptqUnfold, MatchesHandComputedPatches) {
  const float image3x3[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  Conv2dGeometry plain;
  plain.kernel_h = plain.kernel_w = 2;
  EXPECT_EQ(unfoldConv2d(image3x3, 1, 1, 3, 3, plain),
            rows({{1, 2, 4, 5}, {2, 3, 5, 6}, {4, 5, 7, 8}, {5, 6, 8, 9}}));

  Conv2dGeometry dilated = plain;
  dilated.dilation_h = dilated.dilation_w = 2;
  EXPECT_EQ(unfoldConv2d(image3x3, 1, 1, 3, 3, dilated), rows({{1, 3, 7, 9}}));

  const float image2x2[] = {1, 2, 3, 4};
  Conv2dGeometry padded = plain;
  padded.pad_h = padded.pad_w = 1;
  padded.stride_h = padded.stride_w = 2;
  EXPECT_EQ(unfoldConv2d(image2x2, 1, 1, 2, 2, padded), rows({{0, 0, 0, 1}, {0, 0, 2, 0}, {0, 3, 0, 0}, {4, 0, 0, 0}}));

  // Two images of two channels: groups split channels into separate samples of C/groups features.
  const float batch[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18};
  EXPECT_EQ(unfoldConv2d(batch, 2, 2, 2, 2, plain), rows({{1, 2, 3, 4, 5, 6, 7, 8}, {11, 12, 13, 14, 15, 16, 17, 18}}));
  Conv2dGeometry grouped = plain;
  grouped.groups = 2;
  EXPECT_EQ(unfoldConv2d(batch, 2, 2, 2, 2, grouped),
            rows({{1, 2, 3, 4}, {5, 6, 7, 8}, {11, 12, 13, 14}, {15, 16, 17, 18}}));

  Conv2dGeometry wide = plain;
  wide.kernel_w = 4;
  EXPECT_THROW(unfoldConv2d(image3x3, 1, 1, 3, 3, wide), std::invalid_argument);
  EXPECT_THROW(unfoldConv2d(batch, 2, 2, 2, 2, Conv2dGeometry{2, 2, 1, 1, 0, 0, 1, 1, 3}), std::invalid_argument);
}

} // namespace
