// Quantization parameters in the IR: the 4-bit dtypes, the dtype ranges, and the verification
// rules (each good and bad), as quantParamsProblems and through Graph::verify.
#include "tico/ir/graph.h"
#include "tico/ir/quant_params.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tico {
namespace {

TEST(QuantDTypes, FourBitTypesAreStoredOneValuePerByte) {
  EXPECT_EQ(elementSize(DType::UInt4), 1u);
  EXPECT_EQ(elementSize(DType::Int4), 1u);
  EXPECT_EQ(bitWidth(DType::UInt4), 4u);
  EXPECT_EQ(bitWidth(DType::Int4), 4u);
  EXPECT_EQ(bitWidth(DType::UInt8), 8u);
  EXPECT_EQ(bitWidth(DType::Int16), 16u);
  EXPECT_EQ(bitWidth(DType::Float32), 32u);
  EXPECT_EQ(dtypeName(DType::UInt4), "u4");
  EXPECT_EQ(dtypeName(DType::Int4), "i4");
  EXPECT_EQ(parseDType("u4"), DType::UInt4);
  EXPECT_EQ(parseDType("i4"), DType::Int4);
  EXPECT_TRUE(isInteger(DType::Int4));
  EXPECT_FALSE(isFloating(DType::UInt4));
}

TEST(QuantDTypes, RangesOfEveryQuantizedType) {
  struct Case {
    DType dtype;
    int64_t lo, hi;
  };
  for (const Case &c : {Case{DType::UInt4, 0, 15}, Case{DType::Int4, -8, 7}, Case{DType::UInt8, 0, 255},
                        Case{DType::Int8, -128, 127}, Case{DType::Int16, -32768, 32767},
                        Case{DType::Int32, INT32_MIN, INT32_MAX},
                        Case{DType::Int64, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}}) {
    EXPECT_TRUE(isQuantizedDType(c.dtype)) << dtypeName(c.dtype);
    EXPECT_EQ(qmin(c.dtype), c.lo) << dtypeName(c.dtype);
    EXPECT_EQ(qmax(c.dtype), c.hi) << dtypeName(c.dtype);
  }
  for (DType d : {DType::Float32, DType::Bool, DType::UInt16, DType::Unknown}) {
    EXPECT_FALSE(isQuantizedDType(d)) << dtypeName(d);
    EXPECT_THROW(qmin(d), Error);
    EXPECT_THROW(qmax(d), Error);
  }
}

QuantParams perTensor(float scale, int64_t zp) {
  QuantParams q;
  q.scale = {scale};
  q.zero_point = {zp};
  return q;
}

QuantParams perChannel(std::vector<float> scales, int64_t axis) {
  QuantParams q;
  q.zero_point.assign(scales.size(), 0);
  q.scale = std::move(scales);
  q.axis = axis;
  return q;
}

// The single problem reported for `q`, or "" when there is none (several are a test failure).
std::string problemOf(const QuantParams &q, DType dtype, const Shape &shape) {
  const auto problems = quantParamsProblems(q, dtype, shape);
  EXPECT_LE(problems.size(), 1u) << (problems.empty() ? "" : problems[0] + " / " + problems.back());
  return problems.empty() ? "" : problems[0];
}

void expectProblem(const QuantParams &q, DType dtype, const Shape &shape, const std::string &needle) {
  const std::string problem = problemOf(q, dtype, shape);
  EXPECT_NE(problem.find(needle), std::string::npos) << "'" << problem << "' lacks '" << needle << "'";
}

TEST(QuantParamsRules, GoodRecordsOfEveryGranularity) {
  EXPECT_EQ(problemOf(perTensor(0.02f, 128), DType::UInt8, {2, 3}), "");
  EXPECT_EQ(problemOf(perTensor(0.5f, -8), DType::Int4, {}), "");
  EXPECT_EQ(problemOf(perChannel({0.1f, 0.2f}, 0), DType::Int8, {2, 3}), "");
  EXPECT_EQ(problemOf(perChannel({0.1f, 0.2f, 0.3f}, 1), DType::Int16, {2, 3}), "");
  QuantParams block = perChannel(std::vector<float>(4, 0.5f), 1);
  block.block_size = 3; // [2, 6] -> 2 * 6/3 entries
  EXPECT_EQ(problemOf(block, DType::UInt4, {2, 6}), "");
  QuantParams ranged = perTensor(0.5f, 0);
  ranged.min = {-1.0f};
  ranged.max = {1.0f};
  EXPECT_EQ(problemOf(ranged, DType::Int32, {4}), "");
  // A symbolic channel dimension cannot be counted: accepted.
  EXPECT_EQ(problemOf(perChannel({0.1f, 0.2f}, 0), DType::Int8, {Dim::symbolic("s0", 3), 2}), "");
}

TEST(QuantParamsRules, ScaleMustBePositiveAndFinite) {
  expectProblem(perTensor(0.0f, 0), DType::Int8, {2}, "scale[0] is 0.0");
  expectProblem(perTensor(-0.5f, 0), DType::Int8, {2}, "positive finite");
  expectProblem(perTensor(std::nanf(""), 0), DType::Int8, {2}, "scale[0] is nan");
  expectProblem(perTensor(std::numeric_limits<float>::infinity(), 0), DType::Int8, {2}, "is inf");
  QuantParams none;
  expectProblem(none, DType::Int8, {2}, "without a scale");
}

TEST(QuantParamsRules, ZeroPointMustFitTheStorageType) {
  expectProblem(perTensor(0.5f, 256), DType::UInt8, {2}, "zero_point[0] is 256, outside the u8 range [0, 255]");
  expectProblem(perTensor(0.5f, -1), DType::UInt8, {2}, "outside the u8 range");
  expectProblem(perTensor(0.5f, 8), DType::Int4, {2}, "outside the i4 range [-8, 7]");
  expectProblem(perTensor(0.5f, 16), DType::UInt4, {2}, "outside the u4 range [0, 15]");
  expectProblem(perTensor(0.5f, 40000), DType::Int16, {2}, "outside the i16 range");
  EXPECT_EQ(problemOf(perTensor(0.5f, 15), DType::UInt4, {2}), "");
}

TEST(QuantParamsRules, AxisMustBeInsideTheRank) {
  expectProblem(perChannel({0.5f}, 2), DType::Int8, {2, 3}, "axis 2 is outside the rank 2");
  expectProblem(perChannel({0.5f}, -1), DType::Int8, {2, 3}, "axis -1 is outside the rank 2");
}

TEST(QuantParamsRules, PerChannelLengthIsTheDimensionSize) {
  expectProblem(perChannel({0.5f, 0.5f, 0.5f}, 0), DType::Int8, {2, 3},
                "has 3 scales but its per-channel quantization along axis 0 of shape [2, 3] needs 2");
  EXPECT_EQ(problemOf(perTensor(0.5f, 0), DType::Int8, {2}), ""); // per-tensor: one entry
  QuantParams two = perChannel({0.5f, 0.5f}, 0);
  two.axis.reset();
  expectProblem(two, DType::Int8, {2}, "per-tensor quantization of shape [2] needs 1");
}

TEST(QuantParamsRules, ScaleAndZeroPointLengthsAgree) {
  QuantParams q = perChannel({0.5f, 0.25f}, 0);
  q.zero_point = {0};
  expectProblem(q, DType::Int8, {2}, "has 2 scales but 1 zero point");
  QuantParams ranged = perTensor(0.5f, 0);
  ranged.min = {-1.0f};
  expectProblem(ranged, DType::Int8, {2}, "has 1 min and 0 max entries");
  ranged.max = {1.0f};
  ranged.min = ranged.max = {-1.0f, 1.0f};
  expectProblem(ranged, DType::Int8, {2}, "min/max are empty or one per scale");
}

TEST(QuantParamsRules, BlockSizeDividesItsDimension) {
  QuantParams q = perChannel(std::vector<float>(4, 0.5f), 1);
  q.block_size = 4;
  expectProblem(q, DType::Int4, {2, 6}, "block size 4 does not divide dimension 1 of size 6");
  q.block_size = 0;
  expectProblem(q, DType::Int4, {2, 6}, "block size 0 is not positive");
  q.block_size = 3;
  q.scale.resize(3);
  q.zero_point.resize(3);
  expectProblem(q, DType::Int4, {2, 6}, "per-block quantization along axis 1 of shape [2, 6] needs 4");
  QuantParams no_axis = perTensor(0.5f, 0);
  no_axis.block_size = 2;
  expectProblem(no_axis, DType::Int4, {4}, "block size but no axis");
}

TEST(QuantParamsRules, OnlyIntegerStorageTypes) {
  expectProblem(perTensor(0.5f, 0), DType::Float32, {2}, "'f32' is not a quantized integer type");
  expectProblem(perTensor(0.5f, 0), DType::Bool, {2}, "is not a quantized integer type");
}

TEST(QuantParamsRules, GraphVerifyNamesTheValue) {
  Graph g;
  Value *x = g.addInput(InputKind::User, "act", DType::UInt8, {1, 4});
  x->setQuant(perTensor(0.0f, 0));
  Value *w = g.addInput(InputKind::User, "weight", DType::Int8, {3, 4});
  w->setQuant(perChannel({0.5f, 0.5f}, 0));
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(x), {}});
  try {
    g.verify();
    FAIL() << "expected tico::Error";
  } catch (const Error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("value 'act': scale[0] is 0.0"), std::string::npos) << message;
    EXPECT_NE(message.find("value 'weight': has 2 scales"), std::string::npos) << message;
  }
  x->setQuant(perTensor(0.5f, 128));
  w->setQuant(perChannel({0.5f, 0.5f, 0.25f}, 0));
  EXPECT_NO_THROW(g.verify());
}

TEST(QuantParamsRules, NodeOutputsCarryQuantFromTheirTypeSpec) {
  Graph g;
  Value *x = g.addInput(InputKind::User, "x", DType::Int8, {4});
  auto q = std::make_shared<const QuantParams>(perTensor(0.25f, 3));
  x->setQuant(q);
  Node *n = g.createNode(OpKey::parseOrThrow("aten::relu.default"), {NamedArg{"self", Argument::value(x)}},
                         {TensorTypeSpec{ValueKind::Tensor, DType::Int8, {4}, "y", q}});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(n->output(0)), {}});
  ASSERT_NE(n->output(0)->quant(), nullptr);
  EXPECT_EQ(n->output(0)->quantShared(), q); // shared, not copied
  g.verify();

  auto copy = g.clone();
  const Value *cx = copy->findValue("x");
  const Value *cy = copy->findValue("y");
  ASSERT_TRUE(cx && cy);
  EXPECT_EQ(cx->quantShared(), q);
  EXPECT_EQ(cy->quantShared(), q);
  EXPECT_EQ(*cy->quant(), perTensor(0.25f, 3));
}

} // namespace
} // namespace tico
