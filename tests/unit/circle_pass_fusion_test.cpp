// Golden tests of the activation-fusion passes: fuse-activation-function and
// fuse-composite-ops. Each builds a small Circle model, runs the pass, checks the operators
// that remain, and checks on the interpreter that the outputs did not change.
#include "circle_pass_test_support.h"

namespace tico::test {
namespace {

using circle::ActivationFunctionType;
using circle::BuiltinOperator;

// x[1,4,4,2] -> CONV_2D(3 filters 1x1) -> RELU -> y
CircleModel convRelu(BuiltinOperator activation, ActivationFunctionType conv_act = ActivationFunctionType::NONE,
                     bool extra_reader = false) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 4, 4, 2});
  int32_t w = b.constant("w", f32({3, 1, 1, 2}, randomFloats(6, 1)));
  int32_t bias = b.constant("b", f32({3}, {0.1f, -0.2f, 0.3f}));
  int32_t c = b.tensor("conv", DType::Float32, {1, 4, 4, 3});
  int32_t y = b.tensor("y", DType::Float32, {1, 4, 4, 3});
  b.op(BuiltinOperator::CONV_2D, {x, w, bias}, {c}, conv2dOptions(conv_act));
  b.op(activation, {c}, {y});
  b.output(y);
  if (extra_reader)
    b.output(c);
  return b.model();
}

TEST(CirclePassFuseActivation, ReluFoldsIntoConvolution) {
  CircleModel m = convRelu(BuiltinOperator::RELU);
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fuse-activation-function")); });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D});
  const CircleOperator &conv = m.subgraphs[0].operators[0];
  EXPECT_EQ(conv.builtin_options.AsConv2DOptions()->fused_activation_function, ActivationFunctionType::RELU);
  // The convolution now writes the activation's tensor: the output name users see stays.
  EXPECT_EQ(tensorAt(m, conv.outputs[0]).name, "y");
  EXPECT_EQ(m.subgraphs[0].outputs, std::vector<int32_t>{conv.outputs[0]});
}

TEST(CirclePassFuseActivation, Relu6AfterReluComposesToRelu6) {
  CircleModel m = convRelu(BuiltinOperator::RELU6, ActivationFunctionType::RELU);
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fuse-activation-function")); });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D});
  EXPECT_EQ(m.subgraphs[0].operators[0].builtin_options.AsConv2DOptions()->fused_activation_function,
            ActivationFunctionType::RELU6);
}

TEST(CirclePassFuseActivation, ProducerWithAnotherReaderIsKept) {
  CircleModel m = convRelu(BuiltinOperator::RELU, ActivationFunctionType::NONE, /*extra_reader=*/true);
  EXPECT_FALSE(runCirclePass(m, "fuse-activation-function"));
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D, BuiltinOperator::RELU}));
}

TEST(CirclePassFuseActivation, TanhOnlyWhenAllowed) {
  CircleModel m = convRelu(BuiltinOperator::TANH);
  EXPECT_FALSE(runCirclePass(m, "fuse-activation-function"));
  EXPECT_EQ(countOps(m, BuiltinOperator::TANH), 1u);
  EXPECT_TRUE(runCirclePass(m, "fuse-activation-function", {{"allow_tanh", true}}));
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D});
}

TEST(CirclePassFuseActivation, ReluAfterAddInEverySubgraph) {
  // The same ADD -> RELU chain in two subgraphs: the pass is multi-subgraph aware.
  ModelBuilder b;
  for (std::size_t s = 0; s < 2; ++s) {
    b.subgraph(s);
    int32_t x = b.input("x", DType::Float32, {2, 3});
    int32_t k = b.constant("k", f32({3}, {1, -2, 3}));
    int32_t a = b.tensor("a", DType::Float32, {2, 3});
    int32_t y = b.tensor("y", DType::Float32, {2, 3});
    b.op(BuiltinOperator::ADD, {x, k}, {a}, addOptions());
    b.op(BuiltinOperator::RELU, {a}, {y});
    b.output(y);
  }
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fuse-activation-function")); });
  for (uint32_t s = 0; s < 2; ++s) {
    ASSERT_EQ(opCodes(m, s), std::vector<BuiltinOperator>{BuiltinOperator::ADD}) << "subgraph " << s;
    EXPECT_EQ(m.subgraphs[s].operators[0].builtin_options.AsAddOptions()->fused_activation_function,
              ActivationFunctionType::RELU);
  }
}

TEST(CirclePassFuseActivation, NonFusingProducerIsKept) {
  // RESHAPE has no fused activation field.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t shape = b.constant("shape", i32({2}, {3, 2}));
  int32_t r = b.tensor("r", DType::Float32, {3, 2});
  int32_t y = b.tensor("y", DType::Float32, {3, 2});
  b.op(BuiltinOperator::RESHAPE, {x, shape}, {r}, reshapeOptions({3, 2}));
  b.op(BuiltinOperator::RELU, {r}, {y});
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "fuse-activation-function"));
  EXPECT_EQ(m.subgraphs[0].operators.size(), 2u);
}

// MINIMUM(MAXIMUM(x, lo), hi) over an FC result.
CircleModel fcClamp(float lo, float hi) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 4});
  int32_t w = b.constant("w", f32({3, 4}, randomFloats(12, 3)));
  int32_t bias = b.constant("b", f32({3}, {0.5f, -0.5f, 0.0f}));
  int32_t lo_c = b.constant("lo", f32({}, {lo}));
  int32_t hi_c = b.constant("hi", f32({}, {hi}));
  int32_t f = b.tensor("fc", DType::Float32, {2, 3});
  int32_t m1 = b.tensor("max", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, w, bias}, {f}, fcOptions());
  b.op(BuiltinOperator::MAXIMUM, {f, lo_c}, {m1});
  b.op(BuiltinOperator::MINIMUM, {m1, hi_c}, {y});
  b.output(y);
  return b.model();
}

TEST(CirclePassFuseComposite, ClampZeroSixBecomesRelu6ThenTheFcActivation) {
  CircleModel m = fcClamp(0.0f, 6.0f);
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-composite-ops"));
    EXPECT_TRUE(runCirclePass(model, "dce"));
  });
  // The clamp pair is one RELU6; the inner MAXIMUM, dead now, was left to dce.
  ASSERT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED, BuiltinOperator::RELU6}));
  // Next round (as in the O1 loop): the RELU6 becomes the FC's fused activation.
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fuse-composite-ops")); });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED});
  EXPECT_EQ(m.subgraphs[0].operators[0].builtin_options.AsFullyConnectedOptions()->fused_activation_function,
            ActivationFunctionType::RELU6);
}

TEST(CirclePassFuseComposite, OtherClampBoundsStay) {
  CircleModel m = fcClamp(-2.0f, 5.0f);
  EXPECT_FALSE(runCirclePass(m, "fuse-composite-ops"));
  EXPECT_EQ(countOps(m, BuiltinOperator::MINIMUM), 1u);
  EXPECT_EQ(countOps(m, BuiltinOperator::MAXIMUM), 1u);
}

TEST(CirclePassFuseComposite, MaximumWithZeroBecomesRelu) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t zero = b.constant("zero", f32({1}, {0.0f}));
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::MAXIMUM, {x, zero}, {y});
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fuse-composite-ops")); });
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::RELU});
}

TEST(CirclePassFuseComposite, OneOverSqrtBecomesRsqrt) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t one = b.constant("one", f32({}, {1.0f}));
  int32_t ax = b.tensor("abs", DType::Float32, {2, 3});
  int32_t s = b.tensor("sqrt", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ABS, {x}, {ax});
  b.op(BuiltinOperator::SQRT, {ax}, {s});
  b.op(BuiltinOperator::DIV, {one, s}, {y}, ModelBuilder::options(circle::DivOptionsT{}));
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-composite-ops"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::ABS, BuiltinOperator::RSQRT}));
}

} // namespace
} // namespace tico::test
