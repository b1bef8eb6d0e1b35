// Cross-layer equalization (plugins/quant-cle) and the ptq quantizer's bias correction
// (plugins/quant-ptq/src/bias_correction.h): which layer pairs CLE finds and why it leaves others,
// the balanced ranges, the float function kept (through the LibTorch evaluator); and the input
// patch means bias correction uses, against the layer's mean output change the evaluator computes.
#include "bias_correction.h"
#include "cle.h"

#include "eval_test_support.h"
#include "legalize_test_support.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tico::cle {
namespace {

using evaltest::f32;
using evaltest::valuesOf;
using evaltest::wave;
const auto dense = evaltest::denseText;

std::string shapeText(const std::vector<int64_t> &sizes) {
  std::string out = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i)
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

Settings settingsOf(std::map<std::string, OptionValue> given) {
  return Settings::from(Options::resolve("quantizer 'cle'", Settings::specs(), given));
}

std::vector<std::vector<float>> run(const Graph &graph, const std::vector<std::shared_ptr<const TensorData>> &inputs) {
  std::vector<std::vector<float>> out;
  for (const EvalValue &v : runGraph(graph, *evaltest::atenEval()->evaluator, inputs))
    out.push_back(valuesOf(*v.tensor));
  return out;
}

void expectSame(const std::vector<std::vector<float>> &after, const std::vector<std::vector<float>> &before,
                float tolerance = 1e-5f) {
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t o = 0; o < before.size(); ++o)
    for (std::size_t i = 0; i < before[o].size(); ++i)
      ASSERT_NEAR(after[o][i], before[o][i], tolerance * (1.0f + std::fabs(before[o][i]))) << o << "," << i;
}

// max |w| per channel along `axis` of a node's weight.
std::vector<float> ranges(const Graph &graph, const std::string &node, int64_t axis) {
  const TensorData &w = *graph.findNode(node)->input(1)->constant();
  const std::vector<float> v = valuesOf(w);
  int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < w.sizes.size(); ++d)
    inner *= w.sizes[d];
  std::vector<float> r(static_cast<std::size_t>(w.sizes[static_cast<std::size_t>(axis)]), 0.0f);
  for (std::size_t e = 0; e < v.size(); ++e) {
    float &m = r[static_cast<std::size_t>((static_cast<int64_t>(e) / inner) % static_cast<int64_t>(r.size()))];
    m = std::max(m, std::fabs(v[e]));
  }
  return r;
}

class CleTest : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }

  QuantizeContext equalize(Graph &graph, const Settings &settings) {
    CrossLayerEqualization cle(settings);
    CalibrationPlan plan;
    QuantizeContext context(evaltest::atenEval()->registry, 0);
    cle.prepare(graph, plan, context);
    EXPECT_TRUE(plan.empty()); // data-free
    cle.convert(graph, context);
    graph.verify();
    return context;
  }
};

// linear a -> add of a per-channel constant -> relu -> linear b; a's rows span 250x in range.
std::string linearPair(const std::string &activation = "aten::relu.default", bool second_reader = false) {
  const std::vector<float> scales = {0.1f, 5.0f, 1.0f, 0.02f, 2.0f, 0.5f};
  std::string text = "graph @main {\n  input %x: f32[5, 4]\n";
  text += "  param %w1: f32[6, 4] \"a.weight\" = " + dense(wave(24, 0.3f, 6, scales)) + "\n";
  text += "  param %b1: f32[6] \"a.bias\" = " + dense(wave(6, 1.1f)) + "\n";
  text += "  param %c: f32[6] \"shift\" = " + dense(wave(6, 2.3f)) + "\n";
  text += "  param %w2: f32[3, 6] \"b.weight\" = " + dense(wave(18, 0.7f)) + "\n";
  text += "  %h: f32[5, 6] = @a aten::linear.default(%x, %w1, %b1)\n";
  text += "  %h2: f32[5, 6] = @shifted aten::add.Tensor(%h, %c)\n";
  text += "  %r: f32[5, 6] = @act " + activation + "(%h2)\n";
  text += "  %y: f32[5, 3] = @b aten::linear.default(%r, %w2)\n";
  if (second_reader)
    text += "  %side: f32[5, 6] = @side aten::neg.default(%h2)\n  return %y, %side\n}";
  else
    text += "  return %y\n}";
  return text;
}

TEST_F(CleTest, FindsTheLinearPairThroughAnAddAndARelu) {
  auto graph = test::parseWithPlugins(linearPair());
  std::vector<std::string> stopped;
  const std::vector<EqualizationPair> pairs = findEqualizationPairs(*graph, true, stopped);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first->name(), "a");
  EXPECT_EQ(pairs[0].second->name(), "b");
  EXPECT_EQ(pairs[0].channels, 6);
  ASSERT_EQ(pairs[0].path.size(), 2u);
  EXPECT_EQ(pairs[0].path[0].kind, PathStep::Kind::AddConstant);
  EXPECT_EQ(pairs[0].path[1].kind, PathStep::Kind::Relu);
  ASSERT_EQ(stopped.size(), 1u); // b's output is the graph output
  EXPECT_NE(stopped[0].find("graph output"), std::string::npos) << stopped[0];
}

TEST_F(CleTest, EqualizesTheRangesAndKeepsTheFunction) {
  auto graph = test::parseWithPlugins(linearPair());
  const auto x = f32({5, 4}, wave(20, 0.9f));
  const auto before = run(*graph, {x});
  const QuantizeContext context = equalize(*graph, settingsOf({}));
  const std::vector<float> r1 = ranges(*graph, "a", 0), r2 = ranges(*graph, "b", 1);
  for (std::size_t c = 0; c < r1.size(); ++c)
    EXPECT_NEAR(r1[c], r2[c], 1e-5f * r2[c]) << c; // both sqrt(r1 r2)
  expectSame(run(*graph, {x}), before);
  double spread_before = 0, spread_after = 0;
  for (const QuantizerMetric &m : context.metrics()) {
    spread_before = m.metric == "cle_range_spread_before" ? m.value : spread_before;
    spread_after = m.metric == "cle_range_spread_after" ? m.value : spread_after;
  }
  EXPECT_GT(spread_before, 4.0); // max / median channel range: 5 / 1
  EXPECT_LT(spread_after, spread_before * 0.6);
}

TEST_F(CleTest, AValueWithASecondReaderStopsThePair) {
  auto graph = test::parseWithPlugins(linearPair("aten::relu.default", /*second_reader=*/true));
  std::vector<std::string> stopped;
  EXPECT_TRUE(findEqualizationPairs(*graph, true, stopped).empty());
  ASSERT_FALSE(stopped.empty());
  EXPECT_NE(stopped[0].find("read by more than one operator"), std::string::npos) << stopped[0];
}

TEST_F(CleTest, Relu6IsSkippedOrBecomesARelu) {
  {
    auto graph = test::parseWithPlugins(linearPair("aten::relu6.default"));
    std::vector<std::string> stopped;
    EXPECT_TRUE(findEqualizationPairs(*graph, false, stopped).empty());
    ASSERT_FALSE(stopped.empty());
    EXPECT_NE(stopped[0].find("relu6"), std::string::npos) << stopped[0];
    equalize(*graph, settingsOf({})); // the default skips: the relu6 stays, the add is folded into a's bias
    EXPECT_NE(test::findOp(*graph, "aten::relu6.default"), nullptr);
    EXPECT_EQ(test::findOp(*graph, "aten::add.Tensor"), nullptr);
  }
  auto graph = test::parseWithPlugins(linearPair("aten::relu6.default"));
  auto with_relu = test::parseWithPlugins(linearPair("aten::relu.default"));
  const auto x = f32({5, 4}, wave(20, 0.9f)); // activations stay below 6: relu6 = relu here
  const auto before = run(*with_relu, {x});
  equalize(*graph, settingsOf({{"relu6", std::string("relu")}}));
  EXPECT_EQ(test::findOp(*graph, "aten::relu6.default"), nullptr);
  EXPECT_NE(test::findOp(*graph, "aten::relu.default"), nullptr);
  expectSame(run(*graph, {x}), before);
}

// conv 1x1 (4 -> 8) -> mul (batch-norm scale) -> relu -> depthwise 3x3 -> add (batch-norm shift)
// -> relu -> conv 1x1 (8 -> 5): the depthwise layer is in two pairs.
std::string depthwiseChain() {
  const std::vector<float> scales = {0.05f, 3.0f, 1.0f, 0.2f, 8.0f, 0.5f, 1.5f, 0.01f};
  std::string text = "graph @main {\n  input %x: f32[2, 4, 6, 6]\n";
  text += "  param %w1: f32[8, 4, 1, 1] \"e.weight\" = " + dense(wave(32, 0.2f, 8, scales)) + "\n";
  text += "  param %b1: f32[8] \"e.bias\" = " + dense(wave(8, 0.4f)) + "\n";
  text += "  param %m: f32[8, 1, 1] \"bn.scale\" = " + dense(wave(8, 1.7f)) + "\n";
  text += "  param %wd: f32[8, 1, 3, 3] \"d.weight\" = " + dense(wave(72, 0.5f, 8, {2.0f, 0.1f, 1.0f, 4.0f, 0.3f, 1.0f, 0.02f, 6.0f})) + "\n";
  text += "  param %s: f32[8, 1, 1] \"bn.shift\" = " + dense(wave(8, 2.9f)) + "\n";
  text += "  param %w3: f32[5, 8, 1, 1] \"p.weight\" = " + dense(wave(40, 0.8f)) + "\n";
  text += "  param %b3: f32[5] \"p.bias\" = " + dense(wave(5, 0.6f)) + "\n";
  text += "  %e: f32[2, 8, 6, 6] = @expand aten::conv2d.default(%x, %w1, %b1, [1, 1], [0, 0], [1, 1], 1)\n";
  text += "  %em: f32[2, 8, 6, 6] = @bn_scale aten::mul.Tensor(%e, %m)\n";
  text += "  %er: f32[2, 8, 6, 6] = @act1 aten::relu.default(%em)\n";
  text += "  %d: f32[2, 8, 6, 6] = @depthwise aten::conv2d.default(%er, %wd, None, [1, 1], [1, 1], [1, 1], 8)\n";
  text += "  %ds: f32[2, 8, 6, 6] = @bn_shift aten::add.Tensor(%d, %s)\n";
  text += "  %dr: f32[2, 8, 6, 6] = @act2 aten::relu.default(%ds)\n";
  text += "  %y: f32[2, 5, 6, 6] = @project aten::conv2d.default(%dr, %w3, %b3, [1, 1], [0, 0], [1, 1], 1)\n";
  text += "  return %y\n}";
  return text;
}

TEST_F(CleTest, ADepthwiseLayerInTwoPairsIsBalancedOnBothSides) {
  auto graph = test::parseWithPlugins(depthwiseChain());
  std::vector<std::string> stopped;
  ASSERT_EQ(findEqualizationPairs(*graph, true, stopped).size(), 2u);
  const auto x = f32({2, 4, 6, 6}, wave(288, 0.1f));
  const auto before = run(*graph, {x});
  equalize(*graph, settingsOf({}));
  const std::vector<float> expand = ranges(*graph, "expand", 0), depthwise = ranges(*graph, "depthwise", 0),
                           project = ranges(*graph, "project", 1);
  for (std::size_t c = 0; c < expand.size(); ++c) {
    EXPECT_NEAR(expand[c], depthwise[c], 2e-3f * depthwise[c]) << c;
    EXPECT_NEAR(depthwise[c], project[c], 2e-3f * project[c]) << c;
  }
  expectSame(run(*graph, {x}), before, 1e-4f);
}

TEST(CleSettings, OptionsAreChecked) {
  EXPECT_THROW(settingsOf({{"relu6", std::string("clip")}}), Error);
  EXPECT_THROW(settingsOf({{"max_iterations", int64_t{0}}}), Error);
  EXPECT_THROW(settingsOf({{"max_scale", 0.5}}), Error);
}

// Bias correction's patch means: the mean over positions of the layer's output for a weight
// `delta` (no bias) is what outputShift(delta) predicts, padding and strides included.
void expectShiftIsMeanOutput(const std::string &layer_text, const std::vector<int64_t> &input_sizes,
                             const std::vector<int64_t> &weight_sizes, int64_t channel_axis) {
  int64_t in_n = 1, w_n = 1;
  for (int64_t s : input_sizes)
    in_n *= s;
  for (int64_t s : weight_sizes)
    w_n *= s;
  const std::vector<float> delta = wave(w_n, 3.1f);
  std::string text = "graph @main {\n  input %x: f32" + shapeText(input_sizes) + "\n  param %w: f32" +
                     shapeText(weight_sizes) + " \"l.weight\" = " + dense(delta) + "\n" + layer_text + "\n  return %y\n}";
  auto graph = test::parseWithPlugins(text);
  std::string why;
  std::optional<ptq::PatchMeans> means = ptq::PatchMeans::forLayer(*graph->nodes().front(), why);
  ASSERT_TRUE(means) << why;
  std::vector<double> expected;
  std::size_t positions = 0;
  for (float seed : {0.2f, 1.4f}) {
    const auto x = f32(input_sizes, wave(in_n, seed));
    means->add(*x);
    const auto y = runGraph(*graph, *evaltest::atenEval()->evaluator, {x});
    const std::vector<float> out = valuesOf(*y[0].tensor);
    const std::vector<int64_t> &ys = y[0].tensor->sizes;
    const int64_t channels = ys[static_cast<std::size_t>(channel_axis)];
    int64_t inner = 1;
    for (std::size_t d = static_cast<std::size_t>(channel_axis) + 1; d < ys.size(); ++d)
      inner *= ys[d];
    expected.resize(static_cast<std::size_t>(channels), 0.0);
    for (std::size_t e = 0; e < out.size(); ++e)
      expected[static_cast<std::size_t>((static_cast<int64_t>(e) / inner) % channels)] += out[e];
    positions += out.size() / static_cast<std::size_t>(channels);
  }
  const std::vector<double> shift = means->outputShift(delta);
  ASSERT_EQ(shift.size(), expected.size());
  for (std::size_t c = 0; c < shift.size(); ++c)
    EXPECT_NEAR(shift[c], expected[c] / static_cast<double>(positions), 1e-5) << c;
}

TEST_F(CleTest, BiasCorrectionPatchMeansGiveTheMeanOutputChange) {
  expectShiftIsMeanOutput("  %y: f32[3, 2] = aten::linear.default(%x, %w)", {3, 4}, {2, 4}, 1);
  expectShiftIsMeanOutput("  %y: f32[2, 4, 3, 3] = aten::conv2d.default(%x, %w, None, [2, 2], [1, 1], [1, 1], 2)",
                          {2, 6, 5, 5}, {4, 3, 3, 3}, 1);
  expectShiftIsMeanOutput("  %y: f32[2, 3, 3, 5] = circle::conv2d.padding(%x, %w, None, [2, 2], \"same\", [1, 1])",
                          {2, 6, 5, 3}, {5, 3, 3, 3}, 3);
  expectShiftIsMeanOutput(
      "  %y: f32[1, 5, 5, 6] = circle::depthwise_conv2d.default(%x, %w, None, [1, 1], [2, 2], [2, 2])",
      {1, 5, 5, 3}, {1, 3, 3, 6}, 3);
}

TEST_F(CleTest, BiasCorrectionRefusesABatchOfAnotherShape) {
  auto graph = test::parseWithPlugins("graph @main {\n  input %x: f32[3, 4]\n  param %w: f32[2, 4] \"l.weight\" = " +
                                      dense(wave(8, 0.5f)) + "\n  %y: f32[3, 2] = aten::linear.default(%x, %w)\n  return %y\n}");
  std::string why;
  std::optional<ptq::PatchMeans> means = ptq::PatchMeans::forLayer(*graph->nodes().front(), why);
  ASSERT_TRUE(means) << why;
  EXPECT_THROW(means->add(*f32({3, 5}, wave(15, 0.1f))), Error);
  EXPECT_THROW(means->outputShift(wave(8, 0.2f)), Error); // nothing observed yet
}

} // namespace
} // namespace tico::cle
