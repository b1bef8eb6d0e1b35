// linear / mm / bmm / matmul / addmm lowerings.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

TEST(LowerLinear, IsOneFullyConnectedKeepingLeadingDims) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 5, 3]
  param %w: f32[4, 3] "fc.weight" = )" + test::iota(12) + R"(
  param %b: f32[4] "fc.bias" = dense<[1.0, 2.0, 3.0, 4.0]>
  %y: f32[2, 5, 4] = aten::linear.default(%x, %w, %b)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"FULLY_CONNECTED"}));
  const CircleOperator &fc = m.subgraphs[0].operators[0];
  const auto *options = fc.builtin_options.AsFullyConnectedOptions();
  ASSERT_NE(options, nullptr);
  EXPECT_TRUE(options->keep_num_dims);
  EXPECT_EQ(options->weights_format, circle::FullyConnectedOptionsWeightsFormat::DEFAULT);
  EXPECT_EQ(options->fused_activation_function, circle::ActivationFunctionType::NONE);
  // The weight is written as PyTorch stores it, [out, in], from the parameter's own storage.
  EXPECT_EQ(tensorAt(m, fc.inputs[1]).shape, (std::vector<int32_t>{4, 3}));
  EXPECT_EQ(m.buffers[tensorAt(m, fc.inputs[1]).buffer].data->storage, g->findValue("w")->constant()->storage);
  EXPECT_EQ(tensorAt(m, fc.inputs[2]).name, "b");
  EXPECT_EQ(tensorAt(m, fc.outputs[0]).shape, (std::vector<int32_t>{2, 5, 4}));
}

TEST(LowerLinear, AbsentBiasIsMinusOne) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  param %w: f32[4, 3] "fc.weight" = )" + test::iota(12) + R"(
  %y: f32[2, 4] = aten::linear.default(%x, %w)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs, (std::vector<int32_t>{0, 1, -1}));
}

// onert rejects a 1-D FULLY_CONNECTED input, so the vector becomes a one-row matrix and back.
TEST(LowerLinear, VectorInputIsReshapedAroundTheFullyConnected) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  param %w: f32[4, 3] "fc.weight" = )" + test::iota(12) + R"(
  %y: f32[4] = aten::linear.default(%x, %w)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE", "FULLY_CONNECTED", "RESHAPE"}));
  const CircleOperator &fc = firstOp(m, "FULLY_CONNECTED");
  EXPECT_EQ(tensorAt(m, fc.inputs[0]).shape, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(tensorAt(m, fc.outputs[0]).shape, (std::vector<int32_t>{1, 4}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(tensorAt(m, ops.back().outputs[0]).shape, (std::vector<int32_t>{4}));
}

TEST(LowerLinear, IntegerLinearIsReported) {
  auto g = parse(R"(graph @main {
  input %x: i32[2, 3]
  input %w: i32[4, 3]
  %y: i32[2, 4] = aten::linear.default(%x, %w)
  return %y
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("float32"), std::string::npos) << missing[0].reason;
}

TEST(LowerMatMul, ProductsOfComputedTensorsAreBatchMatMul) {
  auto g = parse(R"(graph @main {
  input %a: f32[2, 3]
  input %b: f32[3, 4]
  input %c: f32[5, 4, 2]
  input %d: f32[5, 2, 3]
  %mm: f32[2, 4] = aten::mm.default(%a, %b)
  %bmm: f32[5, 4, 3] = aten::bmm.default(%c, %d)
  %mat: f32[5, 4, 4] = aten::matmul.default(%c, %mm)
  return %mm, %bmm, %mat
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"BATCH_MATMUL", "BATCH_MATMUL", "BATCH_MATMUL"}));
  const auto *options = m.subgraphs[0].operators[0].builtin_options.AsBatchMatMulOptions();
  ASSERT_NE(options, nullptr);
  EXPECT_FALSE(options->adjoint_lhs);
  EXPECT_FALSE(options->adjoint_rhs);
}

TEST(LowerMatMul, VectorOperandsAreReshapedToMatrices) {
  auto g = parse(R"(graph @main {
  input %v: f32[3]
  input %m: f32[2, 3, 4]
  %y: f32[2, 4] = aten::matmul.default(%v, %m)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE", "BATCH_MATMUL", "RESHAPE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(tensorAt(m, ops[1].outputs[0]).shape, (std::vector<int32_t>{2, 1, 4}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[2].inputs[1]), (std::vector<int32_t>{2, 4}));
}

TEST(LowerAddmm, ScalesProductAndBias) {
  auto g = parse(R"(graph @main {
  input %bias: f32[4]
  input %a: f32[2, 3]
  input %b: f32[3, 4]
  %y: f32[2, 4] = aten::addmm.default(%bias, %a, %b, beta=0.5, alpha=2)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"BATCH_MATMUL", "MUL", "MUL", "ADD"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<float>(m, ops[1].inputs[1]), (std::vector<float>{2.0f}));
  EXPECT_EQ(constantValues<float>(m, ops[2].inputs[1]), (std::vector<float>{0.5f}));
}

TEST(LowerAddmm, DefaultScalesAddTheBiasOnly) {
  auto g = parse(R"(graph @main {
  input %bias: f32[4]
  input %a: f32[2, 3]
  input %b: f32[3, 4]
  %y: f32[2, 4] = aten::addmm.default(%bias, %a, %b)
  return %y
})");
  EXPECT_EQ(opNames(lower(*g)), (std::vector<std::string>{"BATCH_MATMUL", "ADD"}));
}

} // namespace
} // namespace tico
