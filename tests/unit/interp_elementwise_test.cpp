// Interpreter: broadcasting arithmetic, comparisons, logical ops, selects, unary math and
// activations. Float references are PyTorch 2.13 values (expression in the comment) or exact
// hand computations.
#include "interp_test_support.h"

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

TensorPtr one(const std::vector<TensorPtr> &outputs) { return outputs.at(0); }

TEST(InterpBinary, AddBroadcastsLikeNumPy) {
  // [2, 1, 3] + [4, 1] -> [2, 4, 3]
  auto a = f32({2, 1, 3}, {1, 2, 3, 10, 20, 30});
  auto b = f32({4, 1}, {100, 200, 300, 400});
  auto out = one(runSingle({B::ADD, {}, {a, b}}));
  expectShape(*out, {2, 4, 3});
  std::vector<float> expected;
  for (float base : {0.0f, 1.0f})
    for (float row : {100.0f, 200.0f, 300.0f, 400.0f})
      for (float col : {1.0f, 2.0f, 3.0f})
        expected.push_back(row + col * (base == 0.0f ? 1.0f : 10.0f));
  expectFloats(*out, expected);
}

TEST(InterpBinary, ScalarOperandsOnEitherSide) {
  auto x = f32({2, 2}, {1, 2, 3, 4});
  auto s = f32({}, {10});
  expectFloats(*one(runSingle({B::SUB, {}, {x, s}})), {-9, -8, -7, -6});
  expectFloats(*one(runSingle({B::SUB, {}, {s, x}})), {9, 8, 7, 6});
  expectFloats(*one(runSingle({B::DIV, {}, {x, s}})), {0.1f, 0.2f, 0.3f, 0.4f});
  expectFloats(*one(runSingle({B::MUL, {}, {s, x}})), {10, 20, 30, 40});
}

TEST(InterpBinary, InnerBroadcastOfAColumn) {
  // [3, 4] * [3, 1]: every row scaled by its own factor (broadcast inner stride 0).
  auto x = f32({3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
  auto f = f32({3, 1}, {1, 10, 100});
  expectFloats(*one(runSingle({B::MUL, {}, {x, f}})), {1, 1, 1, 1, 20, 20, 20, 20, 300, 300, 300, 300});
}

TEST(InterpBinary, FusedActivationClampsTheResult) {
  circle::AddOptionsT options;
  options.fused_activation_function = circle::ActivationFunctionType::RELU6;
  auto a = f32({4}, {-5, 1, 5, 9});
  auto b = f32({4}, {1, 1, 1, 1});
  expectFloats(*one(runSingle({B::ADD, ModelBuilder::options(options), {a, b}})), {0, 2, 6, 6});
}

TEST(InterpBinary, IntegerArithmeticWrapsAndKeepsTheDtype) {
  auto a = i32({3}, {2147483647, -7, 7});
  auto b = i32({3}, {1, 2, -2});
  expectValues<int32_t>(*one(runSingle({B::ADD, {}, {a, b}, DType::Int32})), DType::Int32, {-2147483647 - 1, -5, 5});
  expectValues<int32_t>(*one(runSingle({B::MUL, {}, {a, b}, DType::Int32})), DType::Int32, {2147483647, -14, -14});
  auto c = i64({2}, {int64_t{1} << 40, -3});
  auto d = i64({2}, {3, 5});
  expectValues<int64_t>(*one(runSingle({B::SUB, {}, {c, d}, DType::Int64})), DType::Int64, {(int64_t{1} << 40) - 3, -8});
}

TEST(InterpBinary, FloorDivisionAndModuloFollowPython) {
  // Python: [7 // 2, -7 // 2, 7 // -2, -7 // -2] = [3, -4, -4, 3]; % = [1, 1, -1, -1]
  auto a = i32({4}, {7, -7, 7, -7});
  auto b = i32({4}, {2, 2, -2, -2});
  expectValues<int32_t>(*one(runSingle({B::FLOOR_DIV, {}, {a, b}, DType::Int32})), DType::Int32, {3, -4, -4, 3});
  expectValues<int32_t>(*one(runSingle({B::FLOOR_MOD, {}, {a, b}, DType::Int32})), DType::Int32, {1, 1, -1, -1});
  // torch.floor_divide / torch.remainder on floats: [2.0, -3.0, -3.0, 2.0], [1.5, 0.5, -0.5, -1.5]
  auto x = f32({4}, {5.5f, -5.5f, 5.5f, -5.5f});
  auto y = f32({4}, {2, 2, -2, -2});
  expectFloats(*one(runSingle({B::FLOOR_DIV, {}, {x, y}})), {2, -3, -3, 2});
  expectFloats(*one(runSingle({B::FLOOR_MOD, {}, {x, y}})), {1.5f, 0.5f, -0.5f, -1.5f});
}

TEST(InterpBinary, IntegerDivisionByZeroIsAnErrorNamingTheOperator) {
  auto a = i32({2}, {1, 2});
  auto b = i32({2}, {1, 0});
  const std::string message = errorOf([&] { runSingle({B::FLOOR_DIV, {}, {a, b}, DType::Int32}); });
  EXPECT_TRUE(contains(message, "operator #0 (FLOOR_DIV)")) << message;
  EXPECT_TRUE(contains(message, "division by zero")) << message;
  EXPECT_TRUE(contains(message, "'out0'")) << message;
}

TEST(InterpBinary, PowMaximumMinimumSquaredDifference) {
  auto a = f32({4}, {2, 9, -1, NAN});
  auto b = f32({4}, {3, 0.5f, 4, 1});
  expectFloats(*one(runSingle({B::POW, {}, {a, b}})), {8, 3, 1, NAN});
  // torch.maximum / torch.minimum propagate NaN
  expectFloats(*one(runSingle({B::MAXIMUM, {}, {a, b}})), {3, 9, 4, NAN});
  expectFloats(*one(runSingle({B::MINIMUM, {}, {a, b}})), {2, 0.5f, -1, NAN});
  expectFloats(*one(runSingle({B::SQUARED_DIFFERENCE, {}, {a, b}})), {1, 72.25f, 25, NAN});
  auto p = i64({3}, {3, -2, 5});
  auto e = i64({3}, {4, 3, 0});
  expectValues<int64_t>(*one(runSingle({B::POW, {}, {p, e}, DType::Int64})), DType::Int64, {81, -8, 1});
  expectValues<int64_t>(*one(runSingle({B::MAXIMUM, {}, {p, e}, DType::Int64})), DType::Int64, {4, 3, 5});
}

TEST(InterpBinary, PreluBroadcastsAlphaOverChannels) {
  auto x = f32({2, 3}, {-1, -2, 3, 4, -5, -6});
  auto alpha = f32({3}, {0.5f, 0.25f, 2});
  expectFloats(*one(runSingle({B::PRELU, {}, {x, alpha}})), {-0.5f, -0.5f, 3, 4, -1.25f, -12});
}

TEST(InterpBinary, MismatchedDtypesAndShapesAreErrors) {
  auto a = f32({2}, {1, 2});
  auto b = i32({2}, {1, 2});
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::ADD, {}, {a, b}}); }), "different dtypes"));
  auto c = f32({3}, {1, 2, 3});
  const std::string message = errorOf([&] { runSingle({B::ADD, {}, {a, c}}); });
  EXPECT_TRUE(contains(message, "[2] and [3] cannot be broadcast")) << message;
}

TEST(InterpCompare, ComparisonsGiveBoolAndBroadcast) {
  auto a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = f32({3}, {2, 2, 7});
  auto run = [&](B op) { return valuesOf<uint8_t>(*one(runSingle({op, {}, {a, b}, DType::Bool}))); };
  EXPECT_EQ(run(B::LESS), (std::vector<uint8_t>{1, 0, 1, 0, 0, 1}));
  EXPECT_EQ(run(B::LESS_EQUAL), (std::vector<uint8_t>{1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(run(B::GREATER), (std::vector<uint8_t>{0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(run(B::GREATER_EQUAL), (std::vector<uint8_t>{0, 1, 0, 1, 1, 0}));
  EXPECT_EQ(run(B::EQUAL), (std::vector<uint8_t>{0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(run(B::NOT_EQUAL), (std::vector<uint8_t>{1, 0, 1, 1, 1, 1}));
  auto out = one(runSingle({B::EQUAL, {}, {a, b}, DType::Bool}));
  EXPECT_EQ(out->dtype, DType::Bool);
  expectShape(*out, {2, 3});
}

TEST(InterpCompare, IntegerAndBoolOperands) {
  auto a = i64({3}, {-1, 0, 5});
  auto b = i64({}, {0});
  EXPECT_EQ(valuesOf<uint8_t>(*one(runSingle({B::GREATER, {}, {a, b}, DType::Bool}))), (std::vector<uint8_t>{0, 0, 1}));
  auto p = boolean({2}, {1, 0});
  auto q = boolean({2}, {1, 1});
  EXPECT_EQ(valuesOf<uint8_t>(*one(runSingle({B::EQUAL, {}, {p, q}, DType::Bool}))), (std::vector<uint8_t>{1, 0}));
}

TEST(InterpLogical, AndOrNot) {
  auto p = boolean({4}, {0, 0, 1, 1});
  auto q = boolean({4}, {0, 1, 0, 1});
  EXPECT_EQ(valuesOf<uint8_t>(*one(runSingle({B::LOGICAL_AND, {}, {p, q}, DType::Bool}))),
            (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(valuesOf<uint8_t>(*one(runSingle({B::LOGICAL_OR, {}, {p, q}, DType::Bool}))),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(valuesOf<uint8_t>(*one(runSingle({B::LOGICAL_NOT, {}, {p}, DType::Bool}))),
            (std::vector<uint8_t>{1, 1, 0, 0}));
}

TEST(InterpSelect, SelectV2BroadcastsAllThreeOperands) {
  auto condition = boolean({2, 1}, {1, 0});
  auto x = f32({3}, {1, 2, 3});
  auto y = f32({}, {-1});
  auto out = one(runSingle({B::SELECT_V2, {}, {condition, x, y}}));
  expectShape(*out, {2, 3});
  expectFloats(*out, {1, 2, 3, -1, -1, -1});
}

TEST(InterpSelect, LegacySelectPicksRowsWithAVectorCondition) {
  auto condition = boolean({2}, {0, 1});
  auto x = i32({2, 2}, {1, 2, 3, 4});
  auto y = i32({2, 2}, {5, 6, 7, 8});
  expectValues<int32_t>(*one(runSingle({B::SELECT, {}, {condition, x, y}, DType::Int32})), DType::Int32,
                        {5, 6, 3, 4});
}

TEST(InterpUnary, MathFunctionsMatchPyTorch) {
  auto y = f32({5}, {0.25f, 1, 2, 4, 9});
  // torch.log / exp / rsqrt / sqrt of [0.25, 1, 2, 4, 9]
  expectFloats(*one(runSingle({B::LOG, {}, {y}})), {-1.3862943649f, 0.0f, 0.6931471825f, 1.3862943649f, 2.1972246170f});
  expectFloats(*one(runSingle({B::EXP, {}, {y}})), {1.2840254307f, 2.7182817459f, 7.3890562057f, 54.598148346f, 8103.083984f});
  expectFloats(*one(runSingle({B::RSQRT, {}, {y}})), {2.0f, 1.0f, 0.7071067691f, 0.5f, 0.3333333433f});
  expectFloats(*one(runSingle({B::SQRT, {}, {y}})), {0.5f, 1, 1.4142135624f, 2, 3});
  auto x = f32({4}, {-3, -0.5f, 0.5f, 10});
  // torch.sin / torch.cos
  expectFloats(*one(runSingle({B::SIN, {}, {x}})), {-0.1411200017f, -0.4794255495f, 0.4794255495f, -0.5440211296f});
  expectFloats(*one(runSingle({B::COS, {}, {x}})), {-0.9899924994f, 0.8775825501f, 0.8775825501f, -0.8390715122f});
  expectFloats(*one(runSingle({B::FLOOR, {}, {x}})), {-3, -1, 0, 10});
  expectFloats(*one(runSingle({B::CEIL, {}, {x}})), {-3, -0.0f, 1, 10});
  // torch.round([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6]) rounds half to even
  auto r = f32({7}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.6f});
  expectFloats(*one(runSingle({B::ROUND, {}, {r}})), {-2, -2, 0, 0, 2, 2, 3});
}

TEST(InterpUnary, NegAbsSquareSignOnIntegersAndFloats) {
  auto f = f32({3}, {-2, 0, 3});
  expectFloats(*one(runSingle({B::NEG, {}, {f}})), {2, 0, -3});
  expectFloats(*one(runSingle({B::ABS, {}, {f}})), {2, 0, 3});
  expectFloats(*one(runSingle({B::SQUARE, {}, {f}})), {4, 0, 9});
  expectFloats(*one(runSingle({B::SIGN, {}, {f}})), {-1, 0, 1});
  auto i = i64({3}, {-5, 0, 7});
  expectValues<int64_t>(*one(runSingle({B::NEG, {}, {i}, DType::Int64})), DType::Int64, {5, 0, -7});
  expectValues<int64_t>(*one(runSingle({B::ABS, {}, {i}, DType::Int64})), DType::Int64, {5, 0, 7});
  expectValues<int64_t>(*one(runSingle({B::SQUARE, {}, {i}, DType::Int64})), DType::Int64, {25, 0, 49});
  auto j = i32({2}, {-4, 4});
  expectValues<int32_t>(*one(runSingle({B::SIGN, {}, {j}, DType::Int32})), DType::Int32, {-1, 1});
}

TEST(InterpActivation, ActivationsMatchPyTorch) {
  auto x = f32({8}, {-3, -1.5f, -0.5f, 0, 0.5f, 1.5f, 3, 10});
  expectFloats(*one(runSingle({B::RELU, {}, {x}})), {0, 0, 0, 0, 0.5f, 1.5f, 3, 10});
  expectFloats(*one(runSingle({B::RELU6, {}, {x}})), {0, 0, 0, 0, 0.5f, 1.5f, 3, 6});
  expectFloats(*one(runSingle({B::RELU_N1_TO_1, {}, {x}})), {-1, -1, -0.5f, 0, 0.5f, 1, 1, 1});
  expectFloats(*one(runSingle({B::RELU_0_TO_1, {}, {x}})), {0, 0, 0, 0, 0.5f, 1, 1, 1});
  // torch.sigmoid(x)
  expectFloats(*one(runSingle({B::LOGISTIC, {}, {x}})), {0.0474258736f, 0.1824255288f, 0.3775406778f, 0.5f,
                                                          0.6224593520f, 0.8175744414f, 0.9525741339f, 0.9999545813f});
  // torch.tanh(x)
  expectFloats(*one(runSingle({B::TANH, {}, {x}})), {-0.9950547814f, -0.9051482677f, -0.4621171653f, 0, 0.4621171653f,
                                                      0.9051482677f, 0.9950547814f, 1.0f});
  // F.gelu(x) and F.gelu(x, approximate='tanh')
  expectFloats(*one(runSingle({B::GELU, {}, {x}})), {-0.0040498674f, -0.1002108604f, -0.1542687863f, 0, 0.3457311988f,
                                                      1.3997890949f, 2.9959502220f, 10});
  circle::GeluOptionsT approximate;
  approximate.approximate = true;
  expectFloats(*one(runSingle({B::GELU, ModelBuilder::options(approximate), {x}})),
               {-0.0036374331f, -0.1004284322f, -0.1542859972f, 0, 0.3457140028f, 1.3995715380f, 2.9963626862f, 10});
  // F.elu(x)
  expectFloats(*one(runSingle({B::ELU, {}, {x}})), {-0.9502129555f, -0.7768698335f, -0.3934693336f, 0, 0.5f, 1.5f, 3, 10});
  // F.hardswish(x)
  expectFloats(*one(runSingle({B::HARD_SWISH, {}, {x}})), {0, -0.375f, -0.2083333284f, 0, 0.2916666567f, 1.125f, 3, 10});
  // F.leaky_relu(x, 0.1)
  circle::LeakyReluOptionsT leaky;
  leaky.alpha = 0.1f;
  expectFloats(*one(runSingle({B::LEAKY_RELU, ModelBuilder::options(leaky), {x}})),
               {-0.3f, -0.15f, -0.05f, 0, 0.5f, 1.5f, 3, 10});
}

TEST(InterpActivation, NaNPassesThroughClamps) {
  auto x = f32({2}, {NAN, -1});
  expectFloats(*one(runSingle({B::RELU, {}, {x}})), {NAN, 0});
  expectFloats(*one(runSingle({B::RELU6, {}, {x}})), {NAN, 0});
}

TEST(InterpActivation, LargeTensorsSplitOverThreadsGiveTheSameValues) {
  // 100k elements cross the threading threshold; each element is checked against std::tanh.
  const std::vector<float> values = randomFloats(100000, 7);
  auto out = one(runSingle({B::TANH, {}, {f32({100000}, values)}}));
  std::vector<float> expected;
  for (float v : values)
    expected.push_back(std::tanh(v));
  expectFloats(*out, expected, 1e-6f);
}

TEST(InterpActivation, FloatOnlyKernelsRejectIntegersAtConstruction) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Int32, {2});
  const int32_t y = b.tensor("y", DType::Int32, {2});
  b.op(B::TANH, {x}, {y});
  b.output(y);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "TANH x1")) << message;
  EXPECT_TRUE(contains(message, "int32")) << message;
}

} // namespace
} // namespace tico
