// fuse-rms-norm, fuse-rope, fuse-instance-norm: matching and non-matching graphs.
#include "eval_test_support.h"
#include "legalize_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::countOps;
using test::findOp;
using test::opNames;
using test::parseWithPlugins;
using test::runLegalizePass;

const char *kLlamaRmsNorm = R"(graph @main {
  input %h: f32[1, 3, 8]
  param %w: f32[8] "norm.weight" = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]>
  %p: f32[1, 3, 8] = aten::pow.Tensor_Scalar(%h, 2)
  %m: f32[1, 3, 1] = aten::mean.dim(%p, [-1], true)
  %a: f32[1, 3, 1] = aten::add.Tensor(%m, 1e-06)
  %r: f32[1, 3, 1] = aten::rsqrt.default(%a)
  %n: f32[1, 3, 8] = aten::mul.Tensor(%h, %r)
  %y: f32[1, 3, 8] = aten::mul.Tensor(%w, %n)
  return %y
})";

TEST(FuseRmsNorm, LlamaPatternBecomesCircleRmsNorm) {
  auto g = parseWithPlugins(kLlamaRmsNorm);
  ASSERT_TRUE(runLegalizePass(*g, "fuse-rms-norm"));
  EXPECT_EQ(g->numNodes(), 1u) << "everything else is dead";
  const Node *norm = findOp(*g, "circle::rms_norm.default");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->input(0)->name(), "h");
  EXPECT_EQ(norm->input(1)->name(), "w");
  EXPECT_FLOAT_EQ(static_cast<float>(norm->arg("eps").asDouble()), 1e-6f);
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RMS_NORM"}));
  const auto *options = m.subgraphs[0].operators[0].builtin_options.AsRmsNormOptions();
  ASSERT_NE(options, nullptr);
  EXPECT_FLOAT_EQ(options->epsilon, 1e-6f);
}

TEST(FuseRmsNorm, SquareAsMulWithoutWeightAndWithReciprocalSqrt) {
  auto g = parseWithPlugins(R"(graph @main {
  input %h: f32[6, 4]
  %p: f32[6, 4] = aten::mul.Tensor(%h, %h)
  %m: f32[6, 1] = aten::mean.dim(%p, [1], true)
  %a: f32[6, 1] = aten::add.Tensor(%m, 1e-05)
  %s: f32[6, 1] = aten::sqrt.default(%a)
  %r: f32[6, 1] = aten::reciprocal.default(%s)
  %n: f32[6, 4] = aten::mul.Tensor(%r, %h)
  return %n
})");
  ASSERT_TRUE(runLegalizePass(*g, "fuse-rms-norm"));
  const Node *norm = findOp(*g, "circle::rms_norm.default");
  ASSERT_NE(norm, nullptr);
  EXPECT_TRUE(norm->arg("weight").isNone());
  // Rank 2 is reshaped to the rank-3 form the kernels take.
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE", "RMS_NORM", "RESHAPE"}));
}

TEST(FuseRmsNorm, OtherNormalisationsAreLeftAlone) {
  // Mean over dim 1 of a rank-3 tensor (not the last dim), and a mean without keepdim.
  auto g = parseWithPlugins(R"(graph @main {
  input %h: f32[2, 3, 4]
  %p: f32[2, 3, 4] = aten::pow.Tensor_Scalar(%h, 2)
  %m: f32[2, 1, 4] = aten::mean.dim(%p, [1], true)
  %a: f32[2, 1, 4] = aten::add.Tensor(%m, 1e-06)
  %r: f32[2, 1, 4] = aten::rsqrt.default(%a)
  %n: f32[2, 3, 4] = aten::mul.Tensor(%h, %r)
  return %n
})");
  EXPECT_FALSE(runLegalizePass(*g, "fuse-rms-norm"));
}

std::string ropeGraph(const std::string &table_shape) {
  return R"(graph @main {
  input %q: f32[1, 2, 1, 8]
  input %cos: f32)" + table_shape + R"(
  input %sin: f32)" + table_shape + R"(
  %a: f32[1, 2, 1, 8] = aten::mul.Tensor(%q, %cos)
  %x1: f32[1, 2, 1, 4] = aten::slice.Tensor(%q, 3, 0, 4)
  %x2: f32[1, 2, 1, 4] = aten::slice.Tensor(%q, 3, 4, 9223372036854775807)
  %n: f32[1, 2, 1, 4] = aten::neg.default(%x2)
  %c: f32[1, 2, 1, 8] = aten::cat.default([%n, %x1], -1)
  %b: f32[1, 2, 1, 8] = aten::mul.Tensor(%c, %sin)
  %y: f32[1, 2, 1, 8] = aten::add.Tensor(%a, %b)
  return %y
})";
}

TEST(FuseRope, RotateHalfWithOneRowTablesBecomesCircleRope) {
  auto g = parseWithPlugins(ropeGraph("[1, 1, 1, 8]"));
  ASSERT_TRUE(runLegalizePass(*g, "fuse-rope"));
  EXPECT_EQ(g->numNodes(), 1u);
  const Node *rope = findOp(*g, "circle::rope.default");
  ASSERT_NE(rope, nullptr);
  EXPECT_EQ(rope->input(0)->name(), "q");
  EXPECT_EQ(rope->input(1)->name(), "sin");
  EXPECT_EQ(rope->input(2)->name(), "cos");
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"ROPE"}));
  EXPECT_EQ(m.subgraphs[0].operators[0].builtin_options.AsRoPEOptions()->mode, circle::RoPEMode::GPT_NEOX);
}

TEST(FuseRope, PerPositionTablesStayElementwise) {
  // [1, 1, 2, 8] tables would need one row per position; the Circle kernels apply row 0 to all.
  auto g = parseWithPlugins(R"(graph @main {
  input %q: f32[1, 2, 2, 8]
  input %cos: f32[1, 1, 2, 8]
  input %sin: f32[1, 1, 2, 8]
  %a: f32[1, 2, 2, 8] = aten::mul.Tensor(%q, %cos)
  %x1: f32[1, 2, 2, 4] = aten::slice.Tensor(%q, 3, 0, 4)
  %x2: f32[1, 2, 2, 4] = aten::slice.Tensor(%q, 3, 4, 9223372036854775807)
  %n: f32[1, 2, 2, 4] = aten::neg.default(%x2)
  %c: f32[1, 2, 2, 8] = aten::cat.default([%n, %x1], -1)
  %b: f32[1, 2, 2, 8] = aten::mul.Tensor(%c, %sin)
  %y: f32[1, 2, 2, 8] = aten::add.Tensor(%a, %b)
  return %y
})");
  EXPECT_FALSE(runLegalizePass(*g, "fuse-rope"));
}

TEST(FuseRope, SwappedHalvesAreNotRotateHalf) {
  auto g = parseWithPlugins(R"(graph @main {
  input %q: f32[1, 2, 1, 8]
  input %cos: f32[1, 1, 1, 8]
  input %sin: f32[1, 1, 1, 8]
  %a: f32[1, 2, 1, 8] = aten::mul.Tensor(%q, %cos)
  %x1: f32[1, 2, 1, 4] = aten::slice.Tensor(%q, 3, 0, 4)
  %x2: f32[1, 2, 1, 4] = aten::slice.Tensor(%q, 3, 4, 9223372036854775807)
  %n: f32[1, 2, 1, 4] = aten::neg.default(%x1)
  %c: f32[1, 2, 1, 8] = aten::cat.default([%n, %x2], -1)
  %b: f32[1, 2, 1, 8] = aten::mul.Tensor(%c, %sin)
  %y: f32[1, 2, 1, 8] = aten::add.Tensor(%a, %b)
  return %y
})");
  EXPECT_FALSE(runLegalizePass(*g, "fuse-rope"));
}

const char *kDecomposedInstanceNorm = R"(graph @main {
  input %x: f32[2, 2, 3, 4]
  param %w: f32[2] "in.weight" = dense<[1.5, 0.5]>
  param %b: f32[2] "in.bias" = dense<[0.25, -1.0]>
  %rw: f32[4] = aten::repeat.default(%w, [2])
  %rb: f32[4] = aten::repeat.default(%b, [2])
  %v: f32[1, 4, 3, 4] = aten::view.default(%x, [1, 4, 3, 4])
  %bn: f32[1, 4, 3, 4], %mean: f32[4], %rstd: f32[4] = @bn aten::_native_batch_norm_legit.no_stats(%v, %rw, %rb, true, 0.1, 1e-05)
  %y: f32[2, 2, 3, 4] = aten::view.default(%bn, [2, 2, 3, 4])
  return %y
})";

TEST(FuseInstanceNorm, DecomposedInstanceNormIsRestored) {
  auto g = parseWithPlugins(kDecomposedInstanceNorm);
  ASSERT_TRUE(runLegalizePass(*g, "fuse-instance-norm"));
  EXPECT_EQ(g->numNodes(), 1u);
  const Node *norm = findOp(*g, "aten::instance_norm.default");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->input(1)->name(), "w");
  EXPECT_EQ(norm->input(2)->name(), "b");
  CircleModel m = test::lowerWithPlugins(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "INSTANCE_NORM", "TRANSPOSE"}));

  // Same values as the decomposed form.
  TICO_REQUIRE_ATEN_EVAL();
  const auto *eval = evaltest::atenEval();
  std::vector<float> input(48);
  for (std::size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  auto in = evaltest::f32({2, 2, 3, 4}, input);
  auto before = parseWithPlugins(kDecomposedInstanceNorm);
  auto expected = evaltest::valuesOf(*runGraph(*before, *eval->evaluator, {in})[0].tensor);
  auto actual = evaltest::valuesOf(*runGraph(*g, *eval->evaluator, {in})[0].tensor);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5f);
}

TEST(FuseInstanceNorm, BatchNormOverTheRealBatchIsNotInstanceNorm) {
  auto g = parseWithPlugins(R"(graph @main {
  input %x: f32[2, 2, 3, 4]
  %bn: f32[2, 2, 3, 4], %mean: f32[2], %rstd: f32[2] = @bn aten::_native_batch_norm_legit.no_stats(%x, None, None, true, 0.1, 1e-05)
  %y: f32[2, 2, 3, 4] = aten::view.default(%bn, [2, 2, 3, 4])
  return %y
})");
  EXPECT_FALSE(runLegalizePass(*g, "fuse-instance-norm"));
}

} // namespace
} // namespace tico
