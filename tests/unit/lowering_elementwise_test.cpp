// Elementwise lowerings: arithmetic with scalars and alpha, activations, comparisons, casts.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

TEST(LowerArithmetic, AlphaScalesTheSecondTensorOperand) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  input %y: f32[3]
  %a: f32[2, 3] = aten::add.Tensor(%x, %y, alpha=2)
  return %a
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MUL", "ADD"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].inputs[0], m.subgraphs[0].inputs[1]);
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[1]), (std::vector<float>{2.0f}));
  EXPECT_EQ(ops[1].inputs[1], ops[0].outputs[0]);
  EXPECT_NE(ops[1].builtin_options.AsAddOptions(), nullptr);
}

TEST(LowerArithmetic, ScalarsBecomeConstantsOfTheTensorDtypeWithAlphaFolded) {
  auto g = parse(R"(graph @main {
  input %x: i32[4]
  %s: i32[4] = aten::sub.Scalar(%x, 3, 2)
  %m: i32[4] = aten::mul.Scalar(%s, 5)
  return %m
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"SUB", "MUL"}));
  const auto &ops = m.subgraphs[0].operators;
  const CircleTensor &six = tensorAt(m, ops[0].inputs[1]);
  EXPECT_EQ(six.type, circle::TensorType::INT32);
  EXPECT_TRUE(six.shape.empty()) << "scalar operands are rank 0";
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{6}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{5}));
}

TEST(LowerArithmetic, OperandsAreCastToTheResultDtype) {
  auto g = parse(R"(graph @main {
  input %i: i64[3]
  input %f: f32[3]
  %a: f32[3] = aten::add.Tensor(%i, %f)
  %d: f32[3] = aten::div.Tensor(%i, %i)
  return %a, %d
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CAST", "ADD", "CAST", "CAST", "DIV"}));
  const auto *cast = firstOp(m, "CAST").builtin_options.AsCastOptions();
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->in_data_type, circle::TensorType::INT64);
  EXPECT_EQ(cast->out_data_type, circle::TensorType::FLOAT32);
}

TEST(LowerArithmetic, ReverseSubAndFloorDivision) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  input %y: f32[3]
  %r: f32[3] = aten::rsub.Scalar(%x, 1)
  %q: f32[3] = aten::div.Tensor_mode(%r, %y, rounding_mode="floor")
  return %q
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"SUB", "FLOOR_DIV"}));
  const auto &sub = m.subgraphs[0].operators[0];
  EXPECT_EQ(constantValues<float>(m, sub.inputs[0]), (std::vector<float>{1.0f}));
  EXPECT_EQ(sub.inputs[1], m.subgraphs[0].inputs[0]);
}

TEST(LowerArithmetic, TruncDivisionAndBoolArithmeticAreReported) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  input %b: bool[3]
  %q: f32[3] = aten::div.Tensor_mode(%x, %x, rounding_mode="trunc")
  %s: bool[3] = aten::add.Tensor(%b, %b)
  return %q, %s
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_NE(missing[0].reason.find("torch.bool"), std::string::npos) << missing[0].reason;
  EXPECT_NE(missing[1].reason.find("trunc"), std::string::npos) << missing[1].reason;
}

TEST(LowerActivations, OneOperatorEach) {
  auto g = parse(R"(graph @main {
  input %x: f32[4]
  %a: f32[4] = aten::relu.default(%x)
  %b: f32[4] = aten::sigmoid.default(%a)
  %c: f32[4] = aten::tanh.default(%b)
  %d: f32[4] = aten::gelu.default(%c)
  %e: f32[4] = aten::gelu.default(%d, approximate="tanh")
  %f: f32[4] = aten::hardtanh.default(%e, 0, 6)
  %h: f32[4] = aten::leaky_relu.default(%f, 0.25)
  return %h
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m),
            (std::vector<std::string>{"RELU", "LOGISTIC", "TANH", "GELU", "GELU", "RELU6", "LEAKY_RELU"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_FALSE(ops[3].builtin_options.AsGeluOptions()->approximate);
  EXPECT_TRUE(ops[4].builtin_options.AsGeluOptions()->approximate);
  EXPECT_FLOAT_EQ(ops[6].builtin_options.AsLeakyReluOptions()->alpha, 0.25f);
  auto code = [&](const std::string &name) {
    for (const auto &c : m.operator_codes)
      if (circle::EnumNameBuiltinOperator(static_cast<circle::BuiltinOperator>(c.builtin_code)) == name)
        return c.builtin_code;
    return -1;
  };
  EXPECT_EQ(code("GELU"), 150);
  EXPECT_EQ(m.operator_codes.size(), 6u) << "operator codes are deduplicated";
}

TEST(LowerActivations, GeneralClampIsMaximumThenMinimum) {
  auto g = parse(R"(graph @main {
  input %x: f32[4]
  %c: f32[4] = aten::clamp.default(%x, -2, 3.5)
  %l: f32[4] = aten::clamp.default(%c, None, 1)
  return %l
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MAXIMUM", "MINIMUM", "MINIMUM"}));
  EXPECT_EQ(constantValues<float>(m, m.subgraphs[0].operators[1].inputs[1]), (std::vector<float>{3.5f}));
}

TEST(LowerActivations, IntegerSigmoidIsReported) {
  auto g = parse(R"(graph @main {
  input %x: i32[4]
  %s: i32[4] = aten::relu.default(%x)
  return %s
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("float32"), std::string::npos);
}

TEST(LowerComparison, PromotesAnIntegerTensorAgainstAFloatScalar) {
  auto g = parse(R"(graph @main {
  input %i: i64[3]
  input %f: f32[3]
  %g: bool[3] = aten::gt.Scalar(%i, 0.5)
  %w: f32[3] = aten::where.ScalarOther(%g, %f, 0)
  return %w
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CAST", "GREATER", "SELECT_V2"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(tensorAt(m, ops[1].inputs[1]).type, circle::TensorType::FLOAT32);
  EXPECT_EQ(constantValues<float>(m, ops[2].inputs[2]), (std::vector<float>{0.0f}));
}

// logical_* read numbers as "x != 0"; bitwise_* stay bool-only (on integers they are bitwise).
TEST(LowerComparison, LogicalOpsOfNumbersCompareWithZero) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  input %i: i32[3]
  input %b: bool[3]
  %n: bool[3] = aten::logical_not.default(%x)
  %a: bool[3] = aten::logical_and.default(%i, %b)
  %k: bool[3] = aten::__and__.Tensor(%a, %n)
  return %k
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"NOT_EQUAL", "LOGICAL_NOT", "NOT_EQUAL", "LOGICAL_AND", "LOGICAL_AND"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[1]), (std::vector<float>{0.0f}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[2].inputs[1]), (std::vector<int32_t>{0}));
  EXPECT_EQ(ops[3].inputs[1], m.subgraphs[0].inputs[2]);

  auto bitwise = parse(R"(graph @main {
  input %i: i32[3]
  %k: i32[3] = aten::bitwise_and.Tensor(%i, %i)
  return %k
})");
  auto missing = findUnsupportedOps(*bitwise, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("non-bool"), std::string::npos) << missing[0].reason;
}

TEST(LowerCopies, SurvivingIdentitiesShareTheTensorOrCopyWhenNeeded) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  %c: f32[3] = aten::clone.default(%x)
  %r: f32[3] = aten::relu.default(%c)
  %d: f32[3] = aten::alias.default(%r)
  return %r, %d
})");
  CircleModel m = lower(*g);
  // The clone shares x's tensor; the alias of the output r gets an identity TRANSPOSE.
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RELU", "TRANSPOSE"}));
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], m.subgraphs[0].inputs[0]);
  EXPECT_NE(m.subgraphs[0].outputs[0], m.subgraphs[0].outputs[1]);
}

TEST(LowerCopies, DtypeChangesAreCasts) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  %i: i32[3] = aten::_to_copy.default(%x, dtype=dtype(i32))
  %b: bool[3] = aten::to.dtype(%i, dtype(bool))
  return %b
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CAST", "CAST"}));
  const auto *second = m.subgraphs[0].operators[1].builtin_options.AsCastOptions();
  EXPECT_EQ(second->in_data_type, circle::TensorType::INT32);
  EXPECT_EQ(second->out_data_type, circle::TensorType::BOOL);
}

TEST(LowerCopies, TrainingDropoutIsReported) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  %d: f32[3] = aten::dropout.default(%x, 0.5, true)
  return %d
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("eval mode"), std::string::npos);
}

} // namespace
} // namespace tico
