// The ptq quantizer's arithmetic (plugins/quant-ptq): qparams with the original's formulas and
// their edge cases, codes, tiling, and each range estimator.
#include "qparams.h"
#include "range_estimator.h"
#include "reservoir.h"
#include "tiling.h"

#include "tico/support/error.h"
#include "error_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tico::ptq {
namespace {

const Grid kU8 = parseGrid("uint8", "auto", "test");
const Grid kI8 = parseGrid("int8", "auto", "test");
const Grid kI16 = parseGrid("int16", "auto", "test");

using testing_support::errorOf;

TileRows oneRow(std::vector<float> v) {
  const auto n = static_cast<int64_t>(v.size());
  return TileRows::owning(std::move(v), 1, n);
}

TEST(PtqQParams, GridsAndSchemes) {
  EXPECT_EQ(kU8.qmin(), 0);
  EXPECT_EQ(kU8.qmax(), 255);
  EXPECT_FALSE(kU8.symmetric);
  EXPECT_TRUE(kI16.symmetric);
  EXPECT_EQ(kI16.qmin(), -32768);
  EXPECT_EQ(kI16.qmax(), 32767);
  const Grid u4 = parseGrid("uint4", "auto", "t");
  EXPECT_EQ(u4.qmax(), 15);
  const Grid i4 = parseGrid("int4", "auto", "t");
  EXPECT_EQ(i4.qmin(), -8);
  EXPECT_EQ(i4.qmax(), 7);
  EXPECT_FALSE(parseGrid("int8", "asymmetric", "t").symmetric);
  // Unsigned + symmetric is refused, as the original's configuration refuses it.
  EXPECT_NE(errorOf([] { parseGrid("uint8", "symmetric", "ctx"); }).find("cannot be symmetric"), std::string::npos);
  EXPECT_NE(errorOf([] { parseGrid("uint3", "auto", "ctx"); }).find("unknown dtype 'uint3'"), std::string::npos);
}

TEST(PtqQParams, AsymmetricRangeIncludesZero) {
  // [-1, 3] on uint8: scale 4/255 (float32), zero point round(63.75) = 64.
  AffineParams p = computeQParams({-1.0f, 3.0f}, kU8, true);
  EXPECT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 64);
  // Positive-only data start at 0: [1, 5] quantizes like [0, 5].
  p = computeQParams({1.0f, 5.0f}, kU8, true);
  EXPECT_EQ(p.scale, 5.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 0);
  // Negative-only data end at 0: zero point at the top of the grid.
  p = computeQParams({-4.0f, -1.0f}, kU8, true);
  EXPECT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 255);
  // uint4 weights.
  p = computeQParams({-0.5f, 1.0f}, parseGrid("uint4", "auto", "t"), false);
  EXPECT_EQ(p.scale, 1.5f / 15.0f);
  EXPECT_EQ(p.zero_point, 5);
}

TEST(PtqQParams, SymmetricUsesLargerSideAndZeroPointZero) {
  AffineParams p = computeQParams({-2.0f, 1.0f}, kI16, true);
  EXPECT_EQ(p.scale, 2.0f / 32767.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = computeQParams({-0.5f, 3.0f}, kI8, false);
  EXPECT_EQ(p.scale, 3.0f / 127.0f);
  // All zeros: the scale floor.
  p = computeQParams({0.0f, 0.0f}, kI8, true);
  EXPECT_EQ(p.scale, 1e-8f);
  EXPECT_EQ(p.zero_point, 0);
}

TEST(PtqQParams, ConstantTensorPerTensorOnly) {
  // The original's special case for a per-tensor range narrower than 1e-8.
  AffineParams p = computeQParams({0.0f, 0.0f}, kU8, true);
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = computeQParams({2.0f, 2.0f}, kU8, true);
  EXPECT_EQ(p.scale, 2.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = computeQParams({-3.0f, -3.0f}, kU8, true);
  EXPECT_EQ(p.scale, 3.0f);
  EXPECT_EQ(p.zero_point, 255);
  // Per channel the general formula applies: a constant positive channel is [0, c].
  p = computeQParams({2.0f, 2.0f}, kU8, false);
  EXPECT_EQ(p.scale, 2.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 0);
  // An all-zero channel gets the floor scale 1e-8 (the original's eps).
  p = computeQParams({0.0f, 0.0f}, kU8, false);
  EXPECT_EQ(p.scale, 1e-8f);
  EXPECT_EQ(p.zero_point, 0);
}

TEST(PtqQParams, CodesRoundHalfToEvenAndClamp) {
  const AffineParams p{1.0f, 10};
  EXPECT_EQ(quantizeCode(2.5f, p, kU8), 12);
  EXPECT_EQ(quantizeCode(3.5f, p, kU8), 14);
  EXPECT_EQ(quantizeCode(-2.5f, p, kU8), 8);
  EXPECT_EQ(quantizeCode(1000.0f, p, kU8), 255);
  EXPECT_EQ(quantizeCode(-1000.0f, p, kU8), 0);
  EXPECT_EQ(dequantizeCode(12, p), 2.0f);
}

TEST(PtqTiling, RowsPerTensorChannelAndBlock) {
  // [[0, 1, 2, 3], [4, 5, 6, 7]]
  std::vector<float> v(8);
  std::iota(v.begin(), v.end(), 0.0f);
  TileRows t = toRows(v, {2, 4}, Tiling::perTensor());
  EXPECT_EQ(t.rows, 1);
  EXPECT_EQ(t.cols, 8);
  t = toRows(v, {2, 4}, Tiling::perChannel(1));
  ASSERT_EQ(t.rows, 4);
  EXPECT_EQ(std::vector<float>(t.row(2).begin(), t.row(2).end()), (std::vector<float>{2, 6}));
  EXPECT_FALSE(t.storage.empty()); // regrouped: a copy
  t = toRows(v, {2, 4}, Tiling::perChannel(0));
  ASSERT_EQ(t.rows, 2);
  EXPECT_EQ(std::vector<float>(t.row(1).begin(), t.row(1).end()), (std::vector<float>{4, 5, 6, 7}));
  // Channels on the outermost dimension are the tensor's own rows: viewed, not copied.
  EXPECT_EQ(t.data.data(), v.data());
  EXPECT_TRUE(t.storage.empty());
  EXPECT_EQ(toRows(v, {2, 4}, Tiling::perTensor()).data.data(), v.data());
  // Blocks of 2 along the input dimension, one tile row per output channel and block.
  t = toRows(v, {2, 4}, Tiling::perBlock(1, 2, 0));
  ASSERT_EQ(t.rows, 4);
  EXPECT_EQ(t.cols, 2);
  EXPECT_EQ(std::vector<float>(t.row(1).begin(), t.row(1).end()), (std::vector<float>{2, 3}));
  EXPECT_EQ(std::vector<float>(t.row(2).begin(), t.row(2).end()), (std::vector<float>{4, 5}));
  EXPECT_EQ(parameterCount({4, 64}, Tiling::perBlock(1, 32, 0)), 8);
  EXPECT_NE(errorOf([&] { toRows(v, {2, 4}, Tiling::perBlock(1, 3, 0)); }).find("does not divide"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { toRows(v, {2, 4}, Tiling::perChannel(2)); }).find("outside a tensor of rank 2"),
            std::string::npos);
}

std::unique_ptr<RangeEstimator> make(const std::string &name, EstimatorSettings s = {}) {
  if (s.grid.bits == 8 && !s.grid.is_signed)
    s.grid = kU8;
  return findEstimator(name).create(s);
}

TEST(PtqEstimators, RegistryKnowsAllAndRejectsUnknown) {
  for (const char *name : {"minmax", "ema", "percentile", "mse"})
    EXPECT_TRUE(estimators().count(name)) << name;
  EXPECT_NE(errorOf([] { findEstimator("kl"); }).find("unknown range estimator 'kl' (known: ema, minmax, mse, percentile)"),
            std::string::npos);
}

TEST(PtqEstimators, MinMaxRunsOverBatchesPerRow) {
  auto e = make("minmax");
  EXPECT_NE(errorOf([&] { e->ranges(); }).find("saw no data"), std::string::npos);
  e->update(oneRow({0.5f, -1.0f, 2.0f}));
  e->update(oneRow({3.0f, 0.0f}));
  auto r = e->ranges();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].min, -1.0f);
  EXPECT_EQ(r[0].max, 3.0f);
  auto pc = make("minmax");
  pc->update(toRows(std::vector<float>{1, -2, 3, 4}, {2, 2}, Tiling::perChannel(0)));
  r = pc->ranges();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].min, -2.0f);
  EXPECT_EQ(r[1].max, 4.0f);
}

TEST(PtqEstimators, EmaInitialisesOnFirstBatchThenBlends) {
  auto e = make("ema");
  e->update(oneRow({-1.0f, 1.0f}));
  auto r = e->ranges();
  EXPECT_EQ(r[0].min, -1.0f); // first batch: taken as is
  EXPECT_EQ(r[0].max, 1.0f);
  e->update(oneRow({-3.0f, 5.0f}));
  r = e->ranges();
  // momentum 0.9, in float32 like the original's tensor arithmetic.
  const float keep = 0.9f, take = static_cast<float>(1.0 - 0.9);
  EXPECT_EQ(r[0].min, keep * -1.0f + take * -3.0f);
  EXPECT_EQ(r[0].max, keep * 1.0f + take * 5.0f);
  EXPECT_NEAR(r[0].max, 1.4f, 1e-6);
  EstimatorSettings bad;
  bad.momentum = 1.0;
  EXPECT_NE(errorOf([&] { make("ema", bad); }).find("momentum"), std::string::npos);
}

TEST(PtqEstimators, PercentileClipsTailsOfTheSample) {
  std::vector<float> v(10000);
  std::iota(v.begin(), v.end(), 0.0f); // 0 .. 9999
  EstimatorSettings s;
  s.percentile = 99.0;
  s.samples_per_batch = 10000;
  auto e = make("percentile", s);
  e->update(oneRow(v));
  auto r = e->ranges();
  // Non-negative data: [0, q(0.99)], q interpolated at rank 0.99 * 9999.
  EXPECT_EQ(r[0].min, 0.0f);
  EXPECT_FLOAT_EQ(r[0].max, 9899.01f);
  // Signed data: equal tails.
  for (float &x : v)
    x -= 5000.0f;
  auto signed_e = make("percentile", s);
  signed_e->update(oneRow(v));
  r = signed_e->ranges();
  EXPECT_FLOAT_EQ(r[0].min, -5000.0f + 0.005f * 9999.0f);
  EXPECT_FLOAT_EQ(r[0].max, -5000.0f + 0.995f * 9999.0f);
  // Symmetric grid: the percentile of |x|.
  s.grid = kI16;
  auto sym = findEstimator("percentile").create(s);
  sym->update(oneRow(v));
  r = sym->ranges();
  EXPECT_EQ(r[0].min, -r[0].max);
  EXPECT_GT(r[0].max, 4900.0f);
  EXPECT_LT(r[0].max, 5000.0f);
  // 100: the exact min/max.
  s.grid = kU8;
  s.percentile = 100.0;
  auto all = make("percentile", s);
  all->update(oneRow(v));
  r = all->ranges();
  EXPECT_EQ(r[0].min, -5000.0f);
  EXPECT_EQ(r[0].max, 4999.0f);
  // Per tensor only.
  auto pc = make("percentile");
  EXPECT_NE(errorOf([&] { pc->update(toRows(std::vector<float>{1, 2, 3, 4}, {2, 2}, Tiling::perChannel(0))); })
                .find("per tensor only"),
            std::string::npos);
}

TEST(PtqEstimators, SamplingStaysBounded) {
  Reservoir r(150, 100, 0);
  std::vector<float> batch(10000, 1.0f);
  for (int b = 0; b < 5; ++b)
    r.add(batch);
  EXPECT_EQ(r.samples().size(), 150u);
  Reservoir small(1000, 100, 0);
  small.add(std::vector<float>(50, 2.0f));
  EXPECT_EQ(small.samples().size(), 50u); // a batch under the per-batch cap is taken whole
  EXPECT_DOUBLE_EQ(quantile({0, 10}, 0.25), 2.5);
  // The grid: batch 0 takes every n/count-th value from the start; batch 1 shifts by the golden
  // ratio (0.618 of a step: positions floor((k + 0.618) * 100)).
  std::vector<float> ramp(10000);
  std::iota(ramp.begin(), ramp.end(), 0.0f);
  Reservoir grid(1000, 100, 0);
  grid.add(ramp);
  std::vector<float> taken = grid.samples();
  std::sort(taken.begin(), taken.end());
  EXPECT_EQ(taken.front(), 0.0f);
  EXPECT_EQ(taken[1], 100.0f);
  EXPECT_EQ(taken.back(), 9900.0f);
  grid.add(ramp);
  taken = grid.samples();
  std::sort(taken.begin(), taken.end());
  EXPECT_EQ(taken.size(), 200u);
  EXPECT_EQ(taken[1], 61.0f); // floor(0.618... * 100)
}

TEST(PtqEstimators, MseShrinksHeavyTailsAndNeverLosesToMinMax) {
  // Laplace-distributed values (inverse CDF on a regular grid) on a 4-bit grid: rounding error
  // dominates, so clipping the rare large values lowers the total error.
  std::vector<float> v;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const double u = (i + 0.5) / n - 0.5;
    v.push_back(static_cast<float>(-(u < 0 ? -1.0 : 1.0) * std::log(1.0 - 2.0 * std::fabs(u))));
  }
  const auto [lo, hi] = RowMinMax::of(v);
  for (const char *dtype : {"uint4", "int4"}) {
    EstimatorSettings s;
    s.grid = parseGrid(dtype, "auto", "t");
    s.samples_per_batch = n;
    auto e = findEstimator("mse").create(s);
    e->update(oneRow(v));
    const Range r = e->ranges()[0];
    EXPECT_LT(r.max, 0.8f * hi) << dtype;
    EXPECT_GT(r.min, 0.8f * lo) << dtype;
    const double err_mse = quantizationError(v, computeQParams(r, s.grid, true), s.grid);
    const double err_minmax = quantizationError(v, computeQParams({lo, hi}, s.grid, true), s.grid);
    EXPECT_LT(err_mse, err_minmax) << dtype;
    if (s.grid.symmetric)
      EXPECT_EQ(r.min, -r.max);
  }
  // One outlier among many small values is worth keeping on an 8-bit grid: the search keeps
  // the full range when nothing beats it.
  std::vector<float> w(2000, 0.25f);
  w.push_back(20.0f);
  auto keep = make("mse");
  keep->update(oneRow(w));
  EXPECT_EQ(keep->ranges()[0].max, 20.0f);
  // Constant data: nothing to search.
  auto flat = make("mse");
  flat->update(oneRow(std::vector<float>(10, 0.0f)));
  EXPECT_EQ(flat->ranges()[0].max, 0.0f);
}

} // namespace
} // namespace tico::ptq
