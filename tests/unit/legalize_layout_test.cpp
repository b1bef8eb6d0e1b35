// legalize-pre-defined-layout-operators: conv / transposed conv / pooling / instance_norm /
// per-channel prelu become permute + circle:: NHWC op + permute, weights as zero-copy views;
// what the circle:: ops cannot express is left alone.
#include "legalize_test_support.h"

#include <algorithm>

namespace tico {
namespace {

using test::constantValues;
using test::countOps;
using test::findOp;
using test::opNames;
using test::parseWithPlugins;
using test::runLegalizePass;

constexpr const char *kPass = "legalize-pre-defined-layout-operators";

std::vector<int64_t> permutationOf(const Node *n) { return n->arg(1).asInts(); }

TEST(LegalizeLayout, Conv2dBecomesCircleConvBetweenPermutesWithAViewedWeight) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 5, 5]
  param %w: f32[3, 2, 3, 3] "conv.weight" = )" + test::iota(54) + R"(
  param %b: f32[3] "conv.bias" = dense<[1.0, 2.0, 3.0]>
  %y: f32[1, 3, 5, 5] = aten::conv2d.default(%x, %w, %b, [1, 1], [1, 1])
  return %y
})");
  ASSERT_TRUE(runLegalizePass(*g, kPass));
  EXPECT_EQ(countOps(*g, "aten::conv2d.default"), 0u);
  const Node *conv = findOp(*g, "circle::conv2d.default");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->output()->shape(), (Shape{1, 5, 5, 3}));
  EXPECT_EQ(conv->arg("padding").asInts(), (std::vector<int64_t>{1, 1}));
  // Input NCHW -> NHWC; result NHWC -> NCHW.
  ASSERT_TRUE(conv->input(0)->producer());
  EXPECT_EQ(permutationOf(conv->input(0)->producer()), (std::vector<int64_t>{0, 2, 3, 1}));
  ASSERT_EQ(conv->output()->users().size(), 1u);
  EXPECT_EQ(permutationOf(conv->output()->users()[0]), (std::vector<int64_t>{0, 3, 1, 2}));
  // The weight is an OHWI view of the parameter's storage (no permute node, no copy).
  const Value *w = conv->input(1);
  ASSERT_TRUE(w->isConstant());
  EXPECT_EQ(w->shape(), (Shape{3, 3, 3, 2}));
  EXPECT_EQ(w->constant()->storage, g->findValue("w")->constant()->storage);
  EXPECT_EQ(countOps(*g, "aten::permute.default"), 2u);

  // The lowering gives the same operators as the direct ATen lowering.
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "CONV_2D", "TRANSPOSE"}));
  EXPECT_FALSE(runLegalizePass(*g, kPass)) << "a second run must find nothing";
}

TEST(LegalizeLayout, DepthwiseAndStringPaddingVariants) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 4, 4]
  param %w: f32[4, 1, 3, 3] "dw.weight" = )" + test::iota(36) + R"(
  %y: f32[1, 4, 4, 4] = aten::conv2d.padding(%x, %w, None, [1, 1], "same", [1, 1], 2)
  return %y
})");
  ASSERT_TRUE(runLegalizePass(*g, kPass));
  const Node *conv = findOp(*g, "circle::depthwise_conv2d.padding");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->input(1)->shape(), (Shape{1, 3, 3, 4})) << "[O,1,H,W] -> [1,H,W,O]";
  EXPECT_EQ(conv->arg("padding").asString(), "same");
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "DEPTHWISE_CONV_2D", "TRANSPOSE"}));
  EXPECT_EQ(test::firstOp(m, "DEPTHWISE_CONV_2D").builtin_options.AsDepthwiseConv2DOptions()->depth_multiplier, 2);
}

TEST(LegalizeLayout, ComputedWeightsGetAPermuteNode) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 5, 5]
  input %w: f32[3, 2, 3, 3]
  %y: f32[1, 3, 3, 3] = aten::convolution.default(%x, %w, None, [1, 1], [0, 0], [1, 1], false, [0, 0], 1)
  return %y
})");
  ASSERT_TRUE(runLegalizePass(*g, kPass));
  const Node *conv = findOp(*g, "circle::conv2d.default");
  ASSERT_NE(conv, nullptr);
  ASSERT_NE(conv->input(1)->producer(), nullptr);
  EXPECT_EQ(permutationOf(conv->input(1)->producer()), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(countOps(*g, "aten::permute.default"), 3u);
}

TEST(LegalizeLayout, TransposedConvolutionWeightsBecomeOhwi) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 2, 3, 3]
  param %w: f32[2, 4, 3, 3] "up.weight" = )" + test::iota(72) + R"(
  %y: f32[1, 4, 5, 5] = aten::conv_transpose2d.input(%x, %w, None, [2, 2], [1, 1])
  return %y
})");
  ASSERT_TRUE(runLegalizePass(*g, kPass));
  const Node *tconv = findOp(*g, "circle::transpose_conv.default");
  ASSERT_NE(tconv, nullptr);
  EXPECT_EQ(tconv->input(1)->shape(), (Shape{4, 3, 3, 2})) << "IOHW -> OHWI";
  EXPECT_EQ(tconv->output()->shape(), (Shape{1, 5, 5, 4}));
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "TRANSPOSE_CONV", "SLICE", "TRANSPOSE"}));
}

TEST(LegalizeLayout, PoolingInstanceNormAndPrelu) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 3, 4, 4]
  param %a: f32[3] "prelu.weight" = dense<[0.1, 0.2, 0.3]>
  %m: f32[1, 3, 2, 2], %i: i64[1, 3, 2, 2] = @pool aten::max_pool2d_with_indices.default(%x, [2, 2], [2, 2])
  %p: f32[1, 3, 2, 2] = aten::avg_pool2d.default(%m, [1, 1])
  %n: f32[1, 3, 2, 2] = aten::instance_norm.default(%p, None, None, None, None, true, 0.1, 1e-05, false)
  %r: f32[1, 3, 2, 2] = aten::prelu.default(%n, %a)
  return %r
})");
  ASSERT_TRUE(runLegalizePass(*g, kPass));
  for (const char *op : {"circle::maxpool2d.default", "circle::avgpool2d.default", "circle::instance_norm.default",
                         "circle::prelu.default"})
    EXPECT_EQ(countOps(*g, op), 1u) << op;
  EXPECT_EQ(countOps(*g, "aten::permute.default"), 8u);
  EXPECT_EQ(findOp(*g, "circle::prelu.default")->input(0)->shape(), (Shape{1, 2, 2, 3}));
  CircleModel m = test::lowerWithPlugins(*g);
  auto names = opNames(m);
  for (const char *op : {"MAX_POOL_2D", "AVERAGE_POOL_2D", "INSTANCE_NORM", "PRELU"})
    EXPECT_EQ(std::count(names.begin(), names.end(), op), 1) << op;
}

TEST(LegalizeLayout, LeavesWhatTheCircleOpsCannotExpress) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 4, 5, 5]
  input %v: f32[2, 3]
  param %w: f32[4, 2, 3, 3] "g.weight" = )" + test::iota(72) + R"(
  param %a: f32[3] "p.weight" = dense<[0.1, 0.2, 0.3]>
  %y: f32[1, 4, 3, 3] = aten::conv2d.default(%x, %w, None, [1, 1], [0, 0], [1, 1], 2)
  %m: f32[1, 4, 2, 2], %i: i64[1, 4, 2, 2] = @pool aten::max_pool2d_with_indices.default(%x, [2, 2], [2, 2])
  %r: f32[2, 3] = aten::prelu.default(%v, %a)
  return %y, %m, %i, %r
})");
  EXPECT_FALSE(runLegalizePass(*g, kPass)) << "grouped conv, used indices and rank-2 prelu stay ATen";
}

} // namespace
} // namespace tico
