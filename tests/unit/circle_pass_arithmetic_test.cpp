// Golden tests of eliminate-identity-ops, simplify-arithmetic and fold-constants: which
// operators go, which stay, and unchanged outputs on the interpreter.
#include "circle_pass_test_support.h"

namespace tico::test {
namespace {

using circle::BuiltinOperator;

// x -> op(x, c) -> ABS -> y
CircleModel binaryWithConstant(BuiltinOperator code, circle::BuiltinOptionsUnion options, TensorPtr constant,
                               std::vector<int32_t> out_shape = {2, 3}) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t c = b.constant("c", constant);
  int32_t t = b.tensor("t", DType::Float32, out_shape);
  int32_t y = b.tensor("y", DType::Float32, out_shape);
  b.op(code, {x, c}, {t}, std::move(options));
  b.op(BuiltinOperator::ABS, {t}, {y});
  b.output(y);
  return b.model();
}

TEST(CirclePassEliminateIdentity, AddZeroAndMulOneGo) {
  for (auto [code, value] : {std::pair{BuiltinOperator::ADD, 0.0f}, std::pair{BuiltinOperator::MUL, 1.0f}}) {
    auto options = code == BuiltinOperator::ADD ? addOptions() : mulOptions();
    CircleModel m = binaryWithConstant(code, options, f32({3}, {value, value, value}));
    expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "eliminate-identity-ops")); });
    EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ABS});
  }
}

TEST(CirclePassEliminateIdentity, NonNeutralOrBroadcastingConstantStays) {
  CircleModel m = binaryWithConstant(BuiltinOperator::ADD, addOptions(), f32({3}, {0.0f, 1.0f, 0.0f}));
  EXPECT_FALSE(runCirclePass(m, "eliminate-identity-ops"));
  EXPECT_EQ(m.subgraphs[0].operators.size(), 2u);
  // x[2,3] + zeros[4,2,3] widens the result: not an identity.
  CircleModel widened =
      binaryWithConstant(BuiltinOperator::ADD, addOptions(), f32({4, 2, 3}, std::vector<float>(24, 0.0f)), {4, 2, 3});
  EXPECT_FALSE(runCirclePass(widened, "eliminate-identity-ops"));
  EXPECT_EQ(widened.subgraphs[0].operators.size(), 2u);
}

TEST(CirclePassEliminateIdentity, AddZeroWithFusedActivationStays) {
  CircleModel m =
      binaryWithConstant(BuiltinOperator::ADD, addOptions(circle::ActivationFunctionType::RELU), f32({1}, {0.0f}));
  EXPECT_FALSE(runCirclePass(m, "eliminate-identity-ops"));
  EXPECT_EQ(countOps(m, BuiltinOperator::ADD), 1u);
}

TEST(CirclePassEliminateIdentity, FullSliceGoesPartialSliceStays) {
  for (bool full : {true, false}) {
    ModelBuilder b;
    int32_t x = b.input("x", DType::Float32, {2, 3});
    int32_t begin = b.constant("begin", i32({2}, {0, full ? 0 : 1}));
    int32_t size = b.constant("size", i32({2}, {2, full ? 3 : 2}));
    int32_t s = b.tensor("s", DType::Float32, {2, full ? 3 : 2});
    int32_t y = b.tensor("y", DType::Float32, {2, full ? 3 : 2});
    b.op(BuiltinOperator::SLICE, {x, begin, size}, {s}, ModelBuilder::options(circle::SliceOptionsT{}));
    b.op(BuiltinOperator::NEG, {s}, {y});
    b.output(y);
    CircleModel m = b.model();
    if (full) {
      expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "eliminate-identity-ops")); });
      EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::NEG});
    } else {
      EXPECT_FALSE(runCirclePass(m, "eliminate-identity-ops"));
      EXPECT_EQ(countOps(m, BuiltinOperator::SLICE), 1u);
    }
  }
}

TEST(CirclePassEliminateIdentity, IdentityWritingTheGraphOutputHandsItToItsProducer) {
  // x -> NEG -> t -> ADD 0 -> y (output): NEG now writes y directly.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t t = b.tensor("t", DType::Float32, {2, 3});
  int32_t zero = b.constant("zero", f32({}, {0.0f}));
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::NEG, {x}, {t});
  b.op(BuiltinOperator::ADD, {t, zero}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "eliminate-identity-ops")); });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::NEG});
  EXPECT_EQ(m.subgraphs[0].operators[0].outputs[0], y);
  EXPECT_EQ(m.subgraphs[0].outputs, std::vector<int32_t>{y});
}

TEST(CirclePassSimplifyArithmetic, ScalarMultipliesMerge) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t a = b.constant("a", f32({}, {2.0f}));
  int32_t c = b.constant("c", f32({1}, {0.25f}));
  int32_t t = b.tensor("t", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::MUL, {x, a}, {t}, mulOptions());
  b.op(BuiltinOperator::MUL, {t, c}, {y}, mulOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-arithmetic"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::MUL});
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], x);
}

TEST(CirclePassSimplifyArithmetic, InnerResultWithAnotherReaderStays) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t a = b.constant("a", f32({}, {2.0f}));
  int32_t c = b.constant("c", f32({}, {3.0f}));
  int32_t t = b.tensor("t", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ADD, {x, a}, {t}, addOptions());
  b.op(BuiltinOperator::ADD, {t, c}, {y}, addOptions());
  b.output(y);
  b.output(t);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "simplify-arithmetic"));
  EXPECT_EQ(countOps(m, BuiltinOperator::ADD), 2u);
}

TEST(CirclePassFoldConstants, ConstantSubexpressionBecomesOneConstant) {
  // y = x + reshape(c1 * c2 + c3)
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t c1 = b.constant("c1", f32({6}, {1, 2, 3, 4, 5, 6}));
  int32_t c2 = b.constant("c2", f32({}, {0.5f}));
  int32_t c3 = b.constant("c3", f32({6}, {1, 1, 1, -1, -1, -1}));
  int32_t shape = b.constant("shape", i32({2}, {2, 3}));
  int32_t p = b.tensor("p", DType::Float32, {6});
  int32_t s = b.tensor("s", DType::Float32, {6});
  int32_t r = b.tensor("r", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::MUL, {c1, c2}, {p}, mulOptions());
  b.op(BuiltinOperator::ADD, {p, c3}, {s}, addOptions());
  b.op(BuiltinOperator::RESHAPE, {s, shape}, {r}, reshapeOptions({2, 3}));
  b.op(BuiltinOperator::ADD, {x, r}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fold-constants")); });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ADD});
  const CircleTensor &folded = tensorAt(m, m.subgraphs[0].operators[0].inputs[1]);
  EXPECT_EQ(folded.name, "r");
  ASSERT_NE(folded.buffer, 0u);
  EXPECT_EQ(valuesOf<float>(*m.buffers[folded.buffer].data), (std::vector<float>{1.5f, 2, 2.5f, 1, 1.5f, 2}));
}

TEST(CirclePassFoldConstants, OperatorsOnRuntimeValuesAndHeavyOnlyKernelsStay) {
  // FULLY_CONNECTED on constants is only folded by the heavy profile.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 2});
  int32_t cx = b.constant("cx", f32({1, 2}, {1, 2}));
  int32_t w = b.constant("w", f32({2, 2}, {1, 0, 0, 1}));
  int32_t f = b.tensor("f", DType::Float32, {1, 2});
  int32_t y = b.tensor("y", DType::Float32, {1, 2});
  b.op(BuiltinOperator::FULLY_CONNECTED, {cx, w, -1}, {f}, fcOptions());
  b.op(BuiltinOperator::ADD, {x, f}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "fold-constants"));
  EXPECT_EQ(m.subgraphs[0].operators.size(), 2u);
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fold-constants", {{"profile", std::string("heavy")}}));
  });
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ADD});
}

} // namespace
} // namespace tico::test
