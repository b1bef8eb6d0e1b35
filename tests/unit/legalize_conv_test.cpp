// decompose-grouped-conv2d, convert-conv1d-to-conv2d, convert-conv3d-to-conv2d: structure of
// the rewrite, and the same results as the original graph through the LibTorch evaluator.
#include "eval_test_support.h"
#include "legalize_test_support.h"

#include <cmath>

namespace tico {
namespace {

using test::countOps;
using test::findOp;
using test::parseWithPlugins;
using test::runLegalizePass;

// Deterministic pseudo-random inputs.
std::shared_ptr<const TensorData> ramp(std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = std::sin(0.37f * static_cast<float>(i)) + 0.01f * static_cast<float>(i % 7);
  return evaltest::f32(std::move(sizes), v);
}

// Runs `graph` before and after `pass` on `inputs` and compares every output.
void expectSameResults(const std::string &text, const std::string &pass,
                       const std::vector<std::shared_ptr<const TensorData>> &inputs) {
  const auto *eval = evaltest::atenEval();
  ASSERT_NE(eval, nullptr);
  auto before = parseWithPlugins(text);
  auto expected = runGraph(*before, *eval->evaluator, inputs);
  auto after = parseWithPlugins(text);
  ASSERT_TRUE(runLegalizePass(*after, pass));
  auto actual = runGraph(*after, *eval->evaluator, inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].tensor->sizes, expected[i].tensor->sizes);
    auto a = evaltest::valuesOf(*actual[i].tensor);
    auto e = evaltest::valuesOf(*expected[i].tensor);
    for (std::size_t k = 0; k < a.size(); ++k)
      ASSERT_NEAR(a[k], e[k], 1e-5f * (1.0f + std::fabs(e[k]))) << "output " << i << " element " << k;
  }
}

class LegalizeConvTest : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }
};

const std::string kGrouped = R"(graph @main {
  input %x: f32[2, 4, 5, 5]
  param %w: f32[6, 2, 3, 3] "g.weight" = )" + test::iota(108) + R"(
  param %b: f32[6] "g.bias" = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]>
  %y: f32[2, 6, 3, 3] = aten::conv2d.default(%x, %w, %b, [1, 1], [0, 0], [1, 1], 2)
  return %y
})";

TEST_F(LegalizeConvTest, GroupedConvolutionRunsChannelsLastWithOneSplit) {
  // float32: one permute to NHWC, one split of the channels, a circle::conv2d per group, one cat
  // and one permute back (no transpose pair per group).
  auto g = parseWithPlugins(kGrouped);
  ASSERT_TRUE(runLegalizePass(*g, "decompose-grouped-conv2d"));
  EXPECT_EQ(countOps(*g, "circle::conv2d.default"), 2u);
  EXPECT_EQ(countOps(*g, "aten::conv2d.default"), 0u);
  EXPECT_EQ(countOps(*g, "aten::split.Tensor"), 1u);
  EXPECT_EQ(countOps(*g, "aten::slice.Tensor"), 0u);
  EXPECT_EQ(countOps(*g, "aten::cat.default"), 1u);
  EXPECT_EQ(countOps(*g, "aten::permute.default"), 2u) << "the weights are rearranged as views";
  EXPECT_EQ(findOp(*g, "aten::cat.default")->arg("dim").asInt(), 3);
  for (const auto &n : g->nodes())
    if (n->op() == OpKey("circle", "conv2d")) {
      EXPECT_TRUE(n->input(1)->isConstant()) << "weight slices are views";
      EXPECT_EQ(n->input(1)->constant()->storage, g->findValue("w")->constant()->storage);
      EXPECT_EQ(n->input(1)->shape(), (Shape{3, 3, 3, 2})) << "OHWI";
    }
  EXPECT_FALSE(runLegalizePass(*g, "decompose-grouped-conv2d"));
  expectSameResults(kGrouped, "decompose-grouped-conv2d", {ramp({2, 4, 5, 5})});
}

TEST_F(LegalizeConvTest, GroupedConvolutionOfOtherDtypesSplitsIntoOneConvPerGroup) {
  // The original's form where the channels-last ops do not apply (here float64).
  std::string text = kGrouped;
  for (std::size_t at; (at = text.find("f32")) != std::string::npos;)
    text.replace(at, 3, "f64");
  auto g = parseWithPlugins(text);
  ASSERT_TRUE(runLegalizePass(*g, "decompose-grouped-conv2d"));
  EXPECT_EQ(countOps(*g, "aten::conv2d.default"), 2u);
  EXPECT_EQ(countOps(*g, "aten::cat.default"), 1u);
  EXPECT_EQ(countOps(*g, "aten::slice.Tensor"), 2u) << "only the input is sliced by a node";
  for (const auto &n : g->nodes())
    if (n->op() == OpKey("aten", "conv2d")) {
      EXPECT_EQ(n->arg("groups").asInt(), 1);
      EXPECT_TRUE(n->input(1)->isConstant()) << "weight slices are views";
      EXPECT_EQ(n->input(1)->constant()->storage, g->findValue("w")->constant()->storage);
    }
  EXPECT_FALSE(runLegalizePass(*g, "decompose-grouped-conv2d"));
}

TEST_F(LegalizeConvTest, RegularAndDepthwiseConvolutionsAreNotGrouped) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[1, 4, 5, 5]
  param %w: f32[4, 1, 3, 3] "dw.weight" = )" + test::iota(36) + R"(
  %y: f32[1, 4, 3, 3] = aten::conv2d.default(%x, %w, None, [1, 1], [0, 0], [1, 1], 4)
  return %y
})");
  EXPECT_FALSE(runLegalizePass(*g, "decompose-grouped-conv2d"));
}

const std::string kConv1d = R"(graph @main {
  input %x: f32[2, 3, 9]
  param %w: f32[4, 3, 3] "c.weight" = )" + test::iota(36) + R"(
  param %b: f32[4] "c.bias" = dense<[0.5, -0.5, 1.0, 2.0]>
  %y: f32[2, 4, 5] = aten::conv1d.default(%x, %w, %b, [2], [1], [1])
  %z: f32[2, 4, 9] = aten::convolution.default(%x, %w, None, [1], [2], [2], false, [0], 1)
  return %y, %z
})";

TEST_F(LegalizeConvTest, Conv1dBecomesConv2dOverAUnitHeight) {
  auto g = parseWithPlugins(kConv1d);
  ASSERT_TRUE(runLegalizePass(*g, "convert-conv1d-to-conv2d"));
  EXPECT_EQ(countOps(*g, "aten::conv2d.default"), 2u);
  const Node *conv = findOp(*g, "aten::conv2d.default");
  EXPECT_EQ(conv->arg("stride").asInts(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(conv->arg("padding").asInts(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(conv->input(0)->shape(), (Shape{2, 3, 1, 9}));
  EXPECT_EQ(conv->input(1)->shape(), (Shape{4, 3, 1, 3}));
  EXPECT_TRUE(conv->input(1)->isConstant());
  EXPECT_EQ(countOps(*g, "aten::squeeze.dims"), 2u);
  expectSameResults(kConv1d, "convert-conv1d-to-conv2d", {ramp({2, 3, 9})});
  // And the result lowers.
  EXPECT_NO_THROW(test::lowerWithPlugins(*g));
}

const std::string kConvTranspose1d = R"(graph @main {
  input %x: f32[1, 2, 5]
  param %w: f32[2, 3, 3] "t.weight" = )" + test::iota(18) + R"(
  %y: f32[1, 3, 10] = aten::conv_transpose1d.default(%x, %w, None, [2], [1], [1])
  return %y
})";

TEST_F(LegalizeConvTest, TransposedConv1dBecomesConvTranspose2d) {
  auto g = parseWithPlugins(kConvTranspose1d);
  ASSERT_TRUE(runLegalizePass(*g, "convert-conv1d-to-conv2d"));
  EXPECT_EQ(countOps(*g, "aten::conv_transpose2d.input"), 1u);
  expectSameResults(kConvTranspose1d, "convert-conv1d-to-conv2d", {ramp({1, 2, 5})});
}

const std::string kConv3d = R"(graph @main {
  input %x: f32[2, 2, 5, 4, 4]
  param %w: f32[3, 2, 3, 2, 2] "c3.weight" = )" + test::iota(72) + R"(
  param %b: f32[3] "c3.bias" = dense<[1.0, -1.0, 0.5]>
  %y: f32[2, 3, 3, 5, 5] = aten::conv3d.default(%x, %w, %b, [2, 1, 1], [1, 1, 1], [1, 1, 1])
  return %y
})";

TEST_F(LegalizeConvTest, Conv3dBecomesOneConv2dPerDepthTap) {
  auto g = parseWithPlugins(kConv3d);
  ASSERT_TRUE(runLegalizePass(*g, "convert-conv3d-to-conv2d"));
  EXPECT_EQ(countOps(*g, "aten::conv3d.default"), 0u);
  EXPECT_EQ(countOps(*g, "aten::conv2d.default"), 3u) << "one per kernel depth";
  EXPECT_EQ(countOps(*g, "aten::add.Tensor"), 2u);
  EXPECT_EQ(countOps(*g, "aten::constant_pad_nd.default"), 1u);
  // onert pads only up to rank 4: the depth padding works on a [N, C, D, H*W] view.
  for (const auto &node : g->nodes())
    if (node->op().str() == "aten::constant_pad_nd.default")
      EXPECT_EQ(node->input(0)->shape().size(), 4u);
  expectSameResults(kConv3d, "convert-conv3d-to-conv2d", {ramp({2, 2, 5, 4, 4})});
  EXPECT_NO_THROW(test::lowerWithPlugins(*g));
}

TEST_F(LegalizeConvTest, Conv3dWithDilatedDepthAndDynamicBatch) {
  const std::string text = R"(graph @main {
  symbol s0 in [1, 8] hint 2
  input %x: f32[s0, 1, 6, 3, 3]
  param %w: f32[2, 1, 2, 3, 3] "c3.weight" = )" + test::iota(36) + R"(
  %y: f32[s0, 2, 4, 1, 1] = aten::convolution.default(%x, %w, None, [1, 1, 1], [0, 0, 0], [2, 1, 1], false, [0, 0, 0], 1)
  return %y
})";
  auto g = parseWithPlugins(text);
  ASSERT_TRUE(runLegalizePass(*g, "convert-conv3d-to-conv2d"));
  EXPECT_EQ(countOps(*g, "aten::conv2d.default"), 2u);
  expectSameResults(text, "convert-conv3d-to-conv2d", {ramp({3, 1, 6, 3, 3})});
}

} // namespace
} // namespace tico
