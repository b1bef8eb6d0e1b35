// Element-wise math and activation lowerings added for the original converter's targets:
// pow, reciprocal, log1p, round/floor/ceil, clamp with tensor bounds, prelu, hardsigmoid,
// logical xor, masked_fill.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

TEST(LowerPow, FloatPowIsPowWithAScalarExponent) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  input %e: f32[2, 3]
  %a: f32[2, 3] = aten::pow.Tensor_Scalar(%x, 3)
  %b: f32[2, 3] = aten::pow.Tensor_Tensor(%x, %e)
  %c: f32[2, 3] = aten::pow.Scalar(2.0, %e)
  return %a, %b, %c
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"POW", "POW", "POW"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[1]), (std::vector<float>{3.0f}));
  EXPECT_EQ(tensorAt(m, ops[0].inputs[1]).shape, (std::vector<int32_t>{}));
  EXPECT_EQ(constantValues<float>(m, ops[2].inputs[0]), (std::vector<float>{2.0f}));
}

TEST(LowerPow, IntegerPowRunsInFloatAndIsRoundedBack) {
  auto g = parse(R"(graph @main {
  input %x: i32[4]
  %a: i32[4] = aten::pow.Tensor_Scalar(%x, 2)
  return %a
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CAST", "POW", "ROUND", "CAST"}));
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).type, circle::TensorType::INT32);
}

TEST(LowerUnaryMath, ReciprocalLog1pSquareAndHardSigmoid) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  %r: f32[3] = aten::reciprocal.default(%x)
  %l: f32[3] = aten::log1p.default(%x)
  %s: f32[3] = aten::square.default(%x)
  %h: f32[3] = aten::hardsigmoid.default(%x)
  return %r, %l, %s, %h
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"DIV", "ADD", "LOG", "MUL", "ADD", "RELU6", "MUL"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[0]), (std::vector<float>{1.0f})) << "DIV(1, x)";
  EXPECT_EQ(constantValues<float>(m, ops[1].inputs[1]), (std::vector<float>{1.0f})) << "x + 1";
  EXPECT_EQ(ops[3].inputs[0], ops[3].inputs[1]) << "MUL(x, x)";
  EXPECT_FLOAT_EQ(constantValues<float>(m, ops[6].inputs[1])[0], 1.0f / 6.0f);
}

TEST(LowerUnaryMath, RoundingOfIntegersIsTheIdentity) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  input %i: i64[3]
  %r: f32[3] = aten::round.default(%x)
  %f: f32[3] = aten::floor.default(%x)
  %c: f32[3] = aten::ceil.default(%x)
  %n: i64[3] = aten::round.default(%i)
  return %r, %f, %c, %n
})");
  EXPECT_EQ(opNames(lower(*g)), (std::vector<std::string>{"ROUND", "FLOOR", "CEIL", "TRANSPOSE"}));
}

TEST(LowerUnaryMath, RoundWithDecimalsIsReported) {
  auto g = parse(R"(graph @main {
  input %x: f32[3]
  %r: f32[3] = aten::round.decimals(%x, decimals=2)
  return %r
})");
  try {
    lower(*g);
    FAIL() << "round with decimals must be reported";
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("decimals != 0"), std::string::npos) << e.what();
  }
}

TEST(LowerClamp, TensorBoundsAreMaximumThenMinimum) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  input %lo: f32[3]
  input %hi: f32[2, 1]
  %y: f32[2, 3] = aten::clamp.Tensor(%x, %lo, %hi)
  %z: f32[2, 3] = aten::clamp_min.default(%x, 0.5)
  %w: f32[2, 3] = aten::clamp.Tensor(%x, None, %hi)
  return %y, %z, %w
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MAXIMUM", "MINIMUM", "MAXIMUM", "MINIMUM"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(tensorAt(m, ops[0].inputs[1]).name, "lo");
  EXPECT_EQ(tensorAt(m, ops[1].inputs[1]).name, "hi");
  EXPECT_EQ(constantValues<float>(m, ops[2].inputs[1]), (std::vector<float>{0.5f}));
}

TEST(LowerPrelu, PerChannelSlopeIsViewedAsChannelByOnes) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 3, 4, 5]
  param %a: f32[3] "prelu.weight" = dense<[0.1, 0.2, 0.3]>
  %y: f32[1, 3, 4, 5] = aten::prelu.default(%x, %a)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"PRELU"}));
  const CircleOperator &op = m.subgraphs[0].operators[0];
  EXPECT_EQ(tensorAt(m, op.inputs[1]).shape, (std::vector<int32_t>{3, 1, 1}));
  EXPECT_EQ(constantValues<float>(m, op.inputs[1]), (std::vector<float>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(m.buffers[tensorAt(m, op.inputs[1]).buffer].data->storage, g->findValue("a")->constant()->storage);
}

TEST(LowerPrelu, CircleChannelsLastPreluUsesTheSlopeAsIs) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 4, 5, 3]
  param %a: f32[3] "prelu.weight" = dense<[0.1, 0.2, 0.3]>
  %y: f32[1, 4, 5, 3] = circle::prelu.default(%x, %a)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"PRELU"}));
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].operators[0].inputs[1]).shape, (std::vector<int32_t>{3}));
}

TEST(LowerLogical, XorAndBitwiseOpsOnBoolAndMaskedFill) {
  auto g = parse(R"(graph @main {
  input %a: bool[4]
  input %b: bool[4]
  input %x: f32[4]
  %xor: bool[4] = aten::logical_xor.default(%a, %b)
  %and: bool[4] = aten::bitwise_and.Tensor(%a, %b)
  %or: bool[4] = aten::bitwise_or.Tensor(%a, %b)
  %f: f32[4] = aten::masked_fill.Scalar(%x, %a, -1.5)
  return %xor, %and, %or, %f
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"NOT_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "SELECT_V2"}));
  const CircleOperator &select = firstOp(m, "SELECT_V2");
  EXPECT_EQ(tensorAt(m, select.inputs[0]).name, "a");
  EXPECT_EQ(constantValues<float>(m, select.inputs[1]), (std::vector<float>{-1.5f}));
  EXPECT_EQ(tensorAt(m, select.inputs[2]).name, "x");
}

TEST(LowerLogical, NonBoolBitwiseIsReported) {
  auto g = parse(R"(graph @main {
  input %a: i32[4]
  input %b: i32[4]
  %and: i32[4] = aten::bitwise_and.Tensor(%a, %b)
  return %and
})");
  try {
    lower(*g);
    FAIL() << "integer bitwise_and must be reported";
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("non-bool"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tico
