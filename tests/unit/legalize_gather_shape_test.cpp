// convert-gather-to-gather-nd, convert-sym-size-to-circle-shape, lower-to-resize-nearest-neighbor.
#include "legalize_test_support.h"

#include <algorithm>
#include <cstring>

namespace tico {
namespace {

using test::constantValues;
using test::countOps;
using test::findOp;
using test::opNames;
using test::parseWithPlugins;
using test::runLegalizePass;

// onert has no GATHER_ND kernel, so the pass (named after the original's) reads the elements
// with one flat GATHER: index * stride + a constant offset of the other coordinates.
TEST(LegalizeGather, GatherBecomesOneFlatGatherOverLinearOffsets) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[2, 3]
  input %i: i64[2, 2]
  %y: f32[2, 2] = aten::gather.default(%x, 1, %i)
  return %y
})");
  ASSERT_TRUE(runLegalizePass(*g, "convert-gather-to-gather-nd"));
  EXPECT_EQ(findOp(*g, "aten::gather.default"), nullptr);
  EXPECT_EQ(findOp(*g, "circle::gather_nd.default"), nullptr);
  EXPECT_EQ(countOps(*g, "aten::_to_copy.default"), 1u) << "the index is cast to int32 once";
  const Node *index = findOp(*g, "aten::index.Tensor");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->input(0)->shape(), (Shape{6})) << "x is read flat";
  CircleModel m = test::lowerWithPlugins(*g);
  auto names = opNames(m);
  EXPECT_EQ(names.back(), "GATHER");
  EXPECT_EQ(std::count(names.begin(), names.end(), "GATHER_ND"), 0);
}

TEST(LegalizeGather, SymbolicShapesAreLeftToTheReport) {
  auto g = parseWithPlugins(R"(graph @main {
  symbol s0 in [1, 8] hint 2
  input %x: f32[s0, 3]
  input %i: i64[s0, 2]
  %y: f32[s0, 2] = aten::gather.default(%x, 1, %i)
  return %y
})");
  EXPECT_FALSE(runLegalizePass(*g, "convert-gather-to-gather-nd"));
  try {
    test::lowerWithPlugins(*g);
    FAIL() << "aten::gather must not lower";
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("convert-gather-to-gather-nd"), std::string::npos) << e.what();
  }
}

const char *kTwoSymbols = R"(graph @main {
  symbol s0 in [1, 64] hint 2
  symbol s1 in [1, 64] hint 5
  input %x: f32[s0, s1, 8]
  %a: sym_int(s0) = aten::sym_size.int(%x, 0)
  %b: sym_int(s1) = aten::sym_size.int(%x, 1)
  %v: f32[s0, s1, 2, 2, 2] = aten::view.default(%x, [%a, %b, 2, 2, 2])
  return %v
})";

TEST(LegalizeSymSize, SymSizeReadsOneCircleShapePerTensor) {
  auto g = parseWithPlugins(kTwoSymbols);
  ASSERT_TRUE(runLegalizePass(*g, "convert-sym-size-to-circle-shape"));
  EXPECT_EQ(countOps(*g, "aten::sym_size.int"), 0u);
  EXPECT_EQ(countOps(*g, "circle::shape.default"), 1u);
  EXPECT_EQ(countOps(*g, "aten::slice.Tensor"), 2u);
  EXPECT_EQ(countOps(*g, "aten::_local_scalar_dense.default"), 2u);
  const Node *view = findOp(*g, "aten::view.default");
  const auto &sizes = view->arg(1).asSymInts();
  ASSERT_NE(sizes[1].sym, nullptr);
  EXPECT_EQ(sizes[1].sym->symExpr(), "s1") << "the SymInt keeps its expression";

  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"SHAPE", "STRIDED_SLICE", "STRIDED_SLICE", "CONCATENATION",
                                                  "RESHAPE"}));
}

TEST(LegalizeSymSize, UnneededShapeComputationsAreNotEmitted) {
  // One symbolic dim: the reshape uses -1, so the SHAPE chain the pass built stays out.
  auto g = parseWithPlugins(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  input %x: f32[s0, 8]
  %a: sym_int(s0) = aten::sym_size.int(%x, 0)
  %v: f32[s0, 2, 4] = aten::view.default(%x, [%a, 2, 4])
  return %v
})");
  ASSERT_TRUE(runLegalizePass(*g, "convert-sym-size-to-circle-shape"));
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE"}));
  EXPECT_EQ(constantValues<int32_t>(m, m.subgraphs[0].operators[0].inputs[1]), (std::vector<int32_t>{-1, 2, 4}));
}

TEST(LegalizeResize, UpsampleNearestBecomesCircleResize) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 3, 4]
  %y: f32[1, 2, 6, 8] = aten::upsample_nearest2d.vec(%x, None, [2.0, 2.0])
  %z: f32[1, 2, 5, 7] = aten::_upsample_nearest_exact2d.vec(%x, [5, 7], None)
  return %y, %z
})");
  ASSERT_TRUE(runLegalizePass(*g, "lower-to-resize-nearest-neighbor"));
  EXPECT_EQ(countOps(*g, "circle::resize_nearest_neighbor.default"), 2u);
  for (const auto &n : g->nodes())
    if (n->op() == OpKey("circle", "resize_nearest_neighbor")) {
      bool exact = n->output()->shape()[1] == Dim(5);
      EXPECT_EQ(n->arg("half_pixel_centers").asBool(), exact);
      EXPECT_FALSE(n->arg("align_corners").asBool());
    }
  CircleModel m = test::lowerWithPlugins(*g);
  auto names = opNames(m);
  EXPECT_EQ(std::count(names.begin(), names.end(), "RESIZE_NEAREST_NEIGHBOR"), 2);
}

TEST(LegalizeResize, DecomposedIndexingWithNearestIndices) {
  // floor(i * 3/6) rows and floor(i * 4/8) cols: exactly what RESIZE_NEAREST_NEIGHBOR reads.
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 3, 4]
  %r = const i64[6, 1] dense<[0, 0, 1, 1, 2, 2]>
  %c = const i64[8] dense<[0, 0, 1, 1, 2, 2, 3, 3]>
  %y: f32[1, 2, 6, 8] = aten::index.Tensor(%x, [None, None, %r, %c])
  return %y
})");
  ASSERT_TRUE(runLegalizePass(*g, "lower-to-resize-nearest-neighbor"));
  EXPECT_EQ(countOps(*g, "aten::index.Tensor"), 0u);
  EXPECT_EQ(countOps(*g, "circle::resize_nearest_neighbor.default"), 1u);
}

TEST(LegalizeResize, OtherIndicesStayAnIndex) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 3, 4]
  %r = const i64[6, 1] dense<[0, 1, 1, 1, 2, 2]>
  %c = const i64[8] dense<[0, 0, 1, 1, 2, 2, 3, 3]>
  %y: f32[1, 2, 6, 8] = aten::index.Tensor(%x, [None, None, %r, %c])
  return %y
})");
  EXPECT_FALSE(runLegalizePass(*g, "lower-to-resize-nearest-neighbor"));
  // The outer-product index still lowers, as two GATHERs.
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"GATHER", "GATHER"}));
}

} // namespace
} // namespace tico
