// Rotations (plugins/quant-rotate): the orthogonal matrices (Hadamard constructions, seeded random),
// which linear pairs a per-head rotation can be fused into and why others are left, and the float
// function kept by the rewrite (offline head rotation and the online Hadamard's added matmuls),
// through the LibTorch evaluator.
#include "hadamard.h"
#include "head_rotations.h"
#include "rotate.h"

#include "eval_test_support.h"
#include "legalize_test_support.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tico::rotate {
namespace {

using evaltest::f32;
using evaltest::valuesOf;
using evaltest::wave;
const auto dense = evaltest::denseText;

TEST(RotateMatrices, HadamardOrdersAndOrthogonality) {
  EXPECT_EQ(hadamardCore(1), 1);
  EXPECT_EQ(hadamardCore(2048), 1);
  EXPECT_EQ(hadamardCore(12), 12);
  EXPECT_EQ(hadamardCore(640), 20); // 20 * 32: Gemma 3 270M's hidden size
  EXPECT_EQ(hadamardCore(96), 12);
  EXPECT_FALSE(hadamardCore(5).has_value());
  EXPECT_FALSE(hadamardCore(28).has_value()); // 27 is not prime
  for (int64_t n : {1, 2, 8, 12, 20, 24, 40, 44, 640}) {
    const Eigen::MatrixXd h = normalizedHadamard(n);
    EXPECT_LT((h * h.transpose() - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff(), 1e-12) << n;
    EXPECT_LT((h.cwiseAbs().array() - 1.0 / std::sqrt(static_cast<double>(n))).abs().maxCoeff(), 1e-12) << n;
  }
  EXPECT_THROW(normalizedHadamard(5), Error);
}

TEST(RotateMatrices, RandomOrthogonalDependsOnlyOnTheSeed) {
  const Eigen::MatrixXd a = randomOrthogonal(10, 3), b = randomOrthogonal(10, 3), c = randomOrthogonal(10, 4);
  EXPECT_LT((a * a.transpose() - Eigen::MatrixXd::Identity(10, 10)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(a, b);
  EXPECT_GT((a - c).cwiseAbs().maxCoeff(), 0.1);
}

// x [5, 6] -> v = linear (2 heads of 4, with bias) -> reshape [5, 2, 4] -> transpose -> p @ v ->
// transpose -> reshape [5, 8] -> o = linear -> mlp: up (16) -> `activation` -> down (6).
std::string attention(const std::string &activation = "aten::relu.default", const std::string &after_v = "") {
  std::string text = "graph @main {\n  input %x: f32[5, 6]\n  input %p: f32[2, 5, 5]\n";
  text += "  param %wv: f32[8, 6] \"v_proj.weight\" = " + dense(wave(48, 0.3f)) + "\n";
  text += "  param %bv: f32[8] \"v_proj.bias\" = " + dense(wave(8, 1.3f)) + "\n";
  text += "  param %wo: f32[6, 8] \"o_proj.weight\" = " + dense(wave(48, 0.7f)) + "\n";
  text += "  param %wu: f32[16, 6] \"up_proj.weight\" = " + dense(wave(96, 1.9f)) + "\n";
  text += "  param %wd: f32[6, 16] \"down_proj.weight\" = " + dense(wave(96, 2.9f)) + "\n";
  text += "  %v: f32[5, 8] = @v aten::linear.default(%x, %wv, %bv)\n";
  std::string v = "%v";
  if (!after_v.empty()) {
    text += "  %v2: f32[5, 8] = @side " + after_v + "(%v)\n";
    v = "%v2";
  }
  text += "  %heads: f32[5, 2, 4] = @split aten::reshape.default(" + v + ", [5, 2, 4])\n";
  text += "  %t: f32[2, 5, 4] = @t aten::transpose.int(%heads, 0, 1)\n";
  text += "  %a: f32[2, 5, 4] = @attend aten::matmul.default(%p, %t)\n";
  text += "  %t2: f32[5, 2, 4] = @t2 aten::transpose.int(%a, 0, 1)\n";
  text += "  %merged: f32[5, 8] = @merge aten::reshape.default(%t2, [5, 8])\n";
  text += "  %o: f32[5, 6] = @o aten::linear.default(%merged, %wo)\n";
  text += "  %u: f32[5, 16] = @up aten::linear.default(%o, %wu)\n";
  text += "  %r: f32[5, 16] = @act " + activation + "(%u)\n";
  text += "  %y: f32[5, 6] = @down aten::linear.default(%r, %wd)\n";
  return text + "  return %y\n}";
}

Settings settingsOf(std::map<std::string, OptionValue> given) {
  return Settings::from(Options::resolve("quantizer 'rotate'", Settings::specs(), given));
}

TEST(RotateHeads, FindsTheValueToOutputPathAndStopsAtNonLinearReaders) {
  auto graph = test::parseWithPlugins(attention());
  std::vector<std::string> skipped;
  const std::vector<HeadRotationGroup> groups = findHeadRotations(*graph, skipped);
  // v -> o per head of 4; o feeds up directly, so o -> up is a pair too (blocks of o's 6 outputs).
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].producer->name(), "v");
  ASSERT_EQ(groups[0].consumers.size(), 1u);
  EXPECT_EQ(groups[0].consumers[0]->name(), "o");
  EXPECT_EQ(groups[0].block, 4);
  EXPECT_EQ(groups[1].producer->name(), "o");
  EXPECT_EQ(groups[1].consumers[0]->name(), "up");
  EXPECT_EQ(groups[1].block, 6);
  ASSERT_EQ(skipped.size(), 2u); // up reaches relu, down is the graph output
  EXPECT_NE(skipped[0].find("aten::relu"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("graph output"), std::string::npos) << skipped[1];

  auto mixed = test::parseWithPlugins(attention("aten::relu.default", "aten::sigmoid.default"));
  skipped.clear();
  const std::vector<HeadRotationGroup> after_sigmoid = findHeadRotations(*mixed, skipped);
  ASSERT_EQ(after_sigmoid.size(), 1u); // only o -> up is left
  EXPECT_EQ(after_sigmoid[0].producer->name(), "o");
  EXPECT_NE(skipped[0].find("aten::sigmoid"), std::string::npos) << skipped[0];
}

class RotateTest : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }

  std::vector<float> run(const Graph &graph) {
    const auto x = f32({5, 6}, wave(30, 0.5f));
    std::vector<float> p = wave(50, 0.2f);
    for (float &e : p)
      e = std::fabs(e);
    return valuesOf(*runGraph(graph, *evaltest::atenEval()->evaluator, {x, f32({2, 5, 5}, p)})[0].tensor);
  }
};

TEST_F(RotateTest, RotationsKeepTheFunction) {
  for (const std::string &rotation : {"hadamard", "random"}) {
    auto graph = test::parseWithPlugins(attention());
    const std::vector<float> before = run(*graph);
    Rotate rotate(settingsOf({{"online", std::vector<std::string>{"*down_proj*"}}, {"rotation", rotation}}));
    CalibrationPlan plan;
    QuantizeContext context(evaltest::atenEval()->registry, 0);
    rotate.prepare(*graph, plan, context);
    EXPECT_TRUE(plan.empty()); // data-free
    EXPECT_TRUE(rotate.convert(*graph, context));
    graph->verify();
    // The online rotation of 16 = 4 x 4: two matmuls by constants and two transposes before down.
    std::size_t matmuls = 0;
    for (const auto &node : graph->nodes())
      matmuls += node->op().str() == "aten::matmul.default";
    EXPECT_EQ(matmuls, 3u);
    EXPECT_NE(valuesOf(*graph->findNode("v")->input(1)->constant()), valuesOf(*graph->findNode("up")->input(1)->constant()));
    const std::vector<float> after = run(*graph);
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i)
      EXPECT_NEAR(after[i], before[i], 1e-5f * (1.0f + std::fabs(before[i]))) << rotation << " " << i;
    std::size_t reports = 0;
    for (const QuantizerMetric &m : context.metrics())
      reports += m.metric == "rotate_head_block" || m.metric == "rotate_online_order";
    EXPECT_EQ(reports, 3u); // v -> o, o -> up (random: no Hadamard of 6), down online
  }
}

// Order 12 is Paley's alone (no power of two to split off): one matmul by the 12 x 12 matrix.
TEST_F(RotateTest, APaleyOrderIsOneMatmul) {
  const std::string text = "graph @main {\n  input %x: f32[3, 12]\n  param %w: f32[4, 12] \"down_proj.weight\" = " +
                           dense(wave(48, 0.4f)) + "\n  %y: f32[3, 4] = @down aten::linear.default(%x, %w)\n  return %y\n}";
  auto graph = test::parseWithPlugins(text);
  const auto x = f32({3, 12}, wave(36, 1.5f));
  const std::vector<float> before = valuesOf(*runGraph(*graph, *evaltest::atenEval()->evaluator, {x})[0].tensor);
  Rotate rotate(settingsOf({{"online", std::vector<std::string>{"*down_proj*"}}}));
  CalibrationPlan plan;
  QuantizeContext context(evaltest::atenEval()->registry, 0);
  EXPECT_TRUE(rotate.convert(*graph, context));
  graph->verify();
  std::size_t matmuls = 0, transposes = 0;
  for (const auto &node : graph->nodes()) {
    matmuls += node->op().str() == "aten::matmul.default";
    transposes += node->op().str() == "aten::transpose.int";
  }
  EXPECT_EQ(matmuls, 1u);
  EXPECT_EQ(transposes, 0u);
  const std::vector<float> after = valuesOf(*runGraph(*graph, *evaltest::atenEval()->evaluator, {x})[0].tensor);
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_NEAR(after[i], before[i], 1e-5f * (1.0f + std::fabs(before[i]))) << i;
}

TEST(RotateSettings, RejectsUnknownRotations) {
  EXPECT_THROW(settingsOf({{"rotation", std::string("givens")}}), Error);
  EXPECT_THROW(settingsOf({{"seed", int64_t{-1}}}), Error);
}

} // namespace
} // namespace tico::rotate
