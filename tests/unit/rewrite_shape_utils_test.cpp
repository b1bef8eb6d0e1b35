// The SDK's shape utilities: dim normalisation, broadcasting (static and symbolic), checked
// element counts and exact arithmetic on symbolic dims.
#include "rewrite_test_support.h"

#include "tico/ir/shape_utils.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tico;
using tico::rewrite_test::errorOf;

namespace {

Dim sym(const std::string &expr, int64_t hint) { return Dim::symbolic(expr, hint); }

} // namespace

TEST(ShapeUtils, NormalizeDimWrapsNegativeDims) {
  EXPECT_EQ(normalizeDim(0, 3), 0);
  EXPECT_EQ(normalizeDim(2, 3), 2);
  EXPECT_EQ(normalizeDim(-1, 3), 2);
  EXPECT_EQ(normalizeDim(-3, 3), 0);
  // PyTorch treats a rank-0 tensor as having one dim for wrapping: 0 and -1 both name it.
  EXPECT_EQ(normalizeDim(0, 0), 0);
  EXPECT_EQ(normalizeDim(-1, 0), 0);
}

TEST(ShapeUtils, NormalizeDimRejectsOutOfRangeWithTheDimAndRank) {
  EXPECT_EQ(errorOf([] { normalizeDim(3, 3); }), "dimension 3 is out of range for a tensor of rank 3");
  EXPECT_EQ(errorOf([] { normalizeDim(-4, 3); }), "dimension -4 is out of range for a tensor of rank 3");
  EXPECT_EQ(errorOf([] { normalizeDim(1, 0); }), "dimension 1 is out of range for a tensor of rank 0");
  EXPECT_EQ(tryNormalizeDim(3, 3), std::nullopt);
  EXPECT_EQ(tryNormalizeDim(-2, 3), 1);
}

TEST(ShapeUtils, NormalizeDimsKeepsOrderAndRejectsRepeats) {
  EXPECT_EQ(normalizeDims({-1, 0}, 4), (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(normalizeDims({}, 4), std::vector<int64_t>{});
  EXPECT_EQ(errorOf([] { normalizeDims({1, -3}, 4); }), "dimension 1 appears more than once in the dim list");
  EXPECT_EQ(errorOf([] { normalizeDims({0, 4}, 4); }), "dimension 4 is out of range for a tensor of rank 4");
}

TEST(ShapeUtils, BroadcastShapesAlignsToTheRight) {
  EXPECT_EQ(broadcastShapes({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcastShapes({}, {5}), (Shape{5}));
  EXPECT_EQ(broadcastShapes({0}, {1}), (Shape{0}));
  EXPECT_EQ(broadcastShapes({2, 3}, {4, 3}), std::nullopt);
}

TEST(ShapeUtils, BroadcastShapesKeepsSymbolicDims) {
  const Dim s0 = sym("s0", 8);
  const Dim s1 = sym("s1", 5);
  // A symbol against 1 stays; against a static size, the program is valid only when they agree.
  EXPECT_EQ(broadcastShapes({s0, 4}, {1, 4}), (Shape{s0, 4}));
  EXPECT_EQ(broadcastShapes({1, 4}, {s0, 1}), (Shape{s0, 4}));
  EXPECT_EQ(broadcastShapes({s0}, {8}), (Shape{8}));
  EXPECT_EQ(broadcastShapes({8}, {s0}), (Shape{8}));
  EXPECT_EQ(broadcastShapes({s0}, {s0}), (Shape{s0}));
  EXPECT_EQ(broadcastShapes({s0}, {s1}), (Shape{s0}));
}

TEST(ShapeUtils, BroadcastSizesOfManyShapes) {
  EXPECT_EQ(broadcastSizes({{2, 1}, {1, 3}, {4, 1, 1}}), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(broadcastSizes({}), std::vector<int64_t>{});
  EXPECT_EQ(broadcastSizes({{2}, {3}}), std::nullopt);
  EXPECT_EQ(broadcastSizes({{0}, {1}}), (std::vector<int64_t>{0}));
}

TEST(ShapeUtils, CheckedProductRefusesOverflowAndNegativeSizes) {
  EXPECT_EQ(checkedProduct({}), 1);
  EXPECT_EQ(checkedProduct({2, 3, 4}), 24);
  EXPECT_EQ(checkedProduct({2, 0, 4}), 0);
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(errorOf([&] { checkedProduct({big, big}); }),
            "the product of sizes 1099511627776 * 1099511627776 overflows int64");
  EXPECT_EQ(errorOf([] { checkedProduct({2, -1}); }), "negative size in a product of sizes (2 * -1)");
  EXPECT_EQ(checkedSizeMul(std::numeric_limits<int64_t>::max(), 1), std::numeric_limits<int64_t>::max());
}

TEST(ShapeUtils, SymbolicProductsAndQuotientsAreExact) {
  const Dim s0 = sym("s0", 8);
  const Dim s1 = sym("s1", 5);
  EXPECT_EQ(mulDims(Dim(4), s0), sym("4*s0", 32));
  EXPECT_EQ(mulDims(s1, mulDims(s0, Dim(2))), sym("2*s0*s1", 80));
  EXPECT_EQ(mulDims(s0, Dim(0)), Dim(0));
  EXPECT_EQ(productOf({2, s0, 3}), sym("6*s0", 48));
  EXPECT_EQ(productOf({2, s0, 3}, 1, 2), s0);
  EXPECT_EQ(productOf({}), Dim(1));
  EXPECT_EQ(divDims(sym("4*s0", 32), Dim(4)), s0);
  EXPECT_EQ(divDims(sym("4*s0", 32), s0), Dim(4));
  EXPECT_EQ(divDims(s0, Dim(3)), std::nullopt); // does not cancel: unknown, not guessed
  EXPECT_EQ(divDims(Dim(6), Dim(0)), std::nullopt);
  EXPECT_TRUE(sameNumel({s0, 6}, {2, 3, s0}));
  EXPECT_FALSE(sameNumel({s0, 6}, {s1, 6}));
  const int64_t big = int64_t{1} << 40;
  EXPECT_THROW(mulDims(Dim(big), Dim(big)), Error);
}
