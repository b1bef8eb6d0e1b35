// Quantized data movement (codes move unchanged, PAD fills with the zero point), pooling, and
// the preparation-time errors for operators and types without a quantized kernel.
#include "interp_quant_test_support.h"

namespace tico {
namespace {

using namespace test;
using namespace test::quant;
using B = circle::BuiltinOperator;

TEST(InterpQuantDataMovement, ReshapeTransposeGatherKeepCodes) {
  const QParams q{{0.1f}, {-5}};
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::Int8, {2, 3}, q);
  const int32_t t = qtensor(b, "t", DType::Int8, {3, 2}, q);
  const int32_t perm = b.constant("perm", i32({2}, {1, 0}));
  b.op(B::TRANSPOSE, {x, perm}, {t});
  const int32_t r = qtensor(b, "r", DType::Int8, {6}, q);
  const int32_t shape = b.constant("shape", i32({1}, {6}));
  b.op(B::RESHAPE, {t, shape}, {r});
  const int32_t g = qtensor(b, "g", DType::Int8, {2}, q);
  const int32_t idx = b.constant("idx", i32({2}, {5, 0}));
  b.op(B::GATHER, {r, idx}, {g});
  b.output(r);
  b.output(g);
  auto out = runModel(b.build(), {codes(DType::Int8, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(codesOf(*out[0]), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(codesOf(*out[1]), (std::vector<int64_t>{6, 1}));
}

TEST(InterpQuantDataMovement, PadFillsWithTheZeroPoint) {
  const QParams q{{0.5f}, {77}};
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::UInt8, {2}, q);
  const int32_t pads = b.constant("pads", i32({1, 2}, {1, 2}));
  const int32_t y = qtensor(b, "y", DType::UInt8, {5}, q);
  b.op(B::PAD, {x, pads}, {y});
  b.output(y);
  EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::UInt8, {2}, {3, 200})})[0]),
            (std::vector<int64_t>{77, 3, 200, 77, 77}));
}

TEST(InterpQuantDataMovement, DifferentParametersAreRejectedBeforeRunning) {
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::Int8, {2, 3}, {{0.1f}, {0}});
  const int32_t shape = b.constant("shape", i32({1}, {6}));
  const int32_t y = qtensor(b, "y", DType::Int8, {6}, {{0.2f}, {0}});
  b.op(B::RESHAPE, {x, shape}, {y});
  b.output(y);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "operator #0")) << message;
  EXPECT_TRUE(contains(message, "RESHAPE")) << message;
  EXPECT_TRUE(contains(message, "keeps the quantization parameters")) << message;
}

TEST(InterpQuantPool, MaxAndAverageOnCodes) {
  const QParams q{{0.25f}, {-10}};
  for (bool is_max : {true, false}) {
    ModelBuilder b;
    const int32_t x = qinput(b, "x", DType::Int8, {1, 2, 3, 1}, q);
    const int32_t y = qtensor(b, "y", DType::Int8, {1, 1, 2, 1}, q);
    circle::Pool2DOptionsT o;
    o.padding = circle::Padding::SAME;
    o.filter_height = 2;
    o.filter_width = 2;
    o.stride_h = 2;
    o.stride_w = 2;
    b.op(is_max ? B::MAX_POOL_2D : B::AVERAGE_POOL_2D, {x}, {y}, ModelBuilder::options(o));
    b.output(y);
    // Windows: {1, 2, 4, 6} and (SAME, last column only) {-3, -6}.
    const auto got = codesOf(*runModel(b.build(), {codes(DType::Int8, {1, 2, 3, 1}, {1, 2, -3, 4, 6, -6})})[0]);
    if (is_max)
      EXPECT_EQ(got, (std::vector<int64_t>{6, -3}));
    else // 13 / 4 = 3.25 -> 3; -9 / 2 = -4.5 -> -5 (half away from zero)
      EXPECT_EQ(got, (std::vector<int64_t>{3, -5}));
  }
}

TEST(InterpQuantPool, ReluClampsAtTheZeroPoint) {
  const QParams q{{0.5f}, {100}};
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::UInt8, {1, 1, 2, 1}, q);
  const int32_t y = qtensor(b, "y", DType::UInt8, {1, 1, 2, 1}, q);
  circle::Pool2DOptionsT o;
  o.padding = circle::Padding::VALID;
  o.filter_height = o.filter_width = 1;
  o.stride_h = o.stride_w = 1;
  o.fused_activation_function = circle::ActivationFunctionType::RELU6; // [0, 6] -> codes [100, 112]
  b.op(B::MAX_POOL_2D, {x}, {y}, ModelBuilder::options(o));
  b.output(y);
  EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::UInt8, {1, 1, 2, 1}, {90, 130})})[0]),
            (std::vector<int64_t>{100, 112}));
}

TEST(InterpQuantErrors, OperatorWithoutQuantizedKernelIsNamedWithItsTypes) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2});
  const int32_t q = qtensor(b, "q", DType::Int8, {2}, {{0.5f}, {3}});
  b.op(B::QUANTIZE, {x}, {q});
  const int32_t e = qtensor(b, "e", DType::Int8, {2}, {{0.5f}, {3}});
  b.op(B::EXP, {q}, {e});
  b.output(e);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "operator #1: no quantized kernel for EXP")) << message;
  EXPECT_TRUE(contains(message, "INT8 (scale 0.5, zero point 3)")) << message;
}

TEST(InterpQuantErrors, TanhFusedActivationAndPerChannelActivationsAreRejected) {
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::Int8, {1, 2}, {{0.5f}, {0}});
  const int32_t w = qconst(b, "w", DType::Int8, {1, 2}, {1, 1}, {{0.25f}, {0}});
  const int32_t y = qtensor(b, "y", DType::Int8, {1, 1}, {{0.5f}, {0}});
  circle::FullyConnectedOptionsT o;
  o.fused_activation_function = circle::ActivationFunctionType::TANH;
  b.op(B::FULLY_CONNECTED, {x, w, -1}, {y}, ModelBuilder::options(o));
  b.output(y);
  const std::string message = errorOf([&] { runModel(b.build(), {codes(DType::Int8, {1, 2}, {1, 1})}); });
  EXPECT_TRUE(contains(message, "TANH has no quantized form")) << message;

  ModelBuilder c;
  QParams per_channel{{0.1f, 0.2f}, {0, 0}, 1};
  const int32_t a = qinput(c, "a", DType::Int8, {1, 2}, per_channel);
  const int32_t d = qinput(c, "d", DType::Int8, {1, 2}, {{0.1f}, {0}});
  const int32_t s = qtensor(c, "s", DType::Int8, {1, 2}, {{0.1f}, {0}});
  c.op(B::ADD, {a, d}, {s});
  c.output(s);
  const std::string second = errorOf([&] { CircleInterpreter interpreter(c.build()); });
  EXPECT_TRUE(contains(second, "operator #0")) << second;
  EXPECT_TRUE(contains(second, "per channel")) << second;
}

TEST(InterpQuantErrors, FourBitTensorsMustBeConstantAndComplete) {
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::UInt8, {2}, {{0.5f}, {0}});
  b.model().subgraphs[0].tensors[static_cast<std::size_t>(x)].type = circle::TensorType::UINT4;
  const int32_t y = qtensor(b, "y", DType::Int8, {2}, {{0.5f}, {0}});
  b.op(B::QUANTIZE, {x}, {y});
  b.output(y);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "4-bit tensor that is not a constant")) << message;

  ModelBuilder c;
  const int32_t in = qinput(c, "in", DType::UInt8, {1, 4}, {{0.5f}, {0}});
  const int32_t w = qconst4(c, "w4", false, {1, 4}, {1, 2, 3, 4}, {{0.5f}, {0}});
  c.model().subgraphs[0].tensors[static_cast<std::size_t>(w)].shape = {1, 6}; // 3 bytes needed, 2 stored
  const int32_t out = qtensor(c, "out", DType::UInt8, {1, 1}, {{0.5f}, {0}});
  c.op(B::FULLY_CONNECTED, {in, w, -1}, {out});
  c.output(out);
  const std::string second = errorOf([&] { CircleInterpreter interpreter(c.build()); });
  EXPECT_TRUE(contains(second, "'w4'")) << second;
  EXPECT_TRUE(contains(second, "packed bytes")) << second;
}

TEST(InterpQuantFourBit, UnpacksLowNibbleFirstAndSignExtends) {
  // w = [[-8, 7, -1]] as INT4 (bytes 0x78, 0x0F) and [[15, 0, 9]] as UINT4; x = [1, 1, 1];
  // with unit scales the dot products are exactly -2 and 24.
  for (bool is_signed : {true, false}) {
    ModelBuilder b;
    const int32_t x = qinput(b, "x", DType::Int8, {1, 3}, {{1.0f}, {0}});
    const std::vector<int64_t> values = is_signed ? std::vector<int64_t>{-8, 7, -1} : std::vector<int64_t>{15, 0, 9};
    const int32_t w = qconst4(b, "w", is_signed, {1, 3}, values, {{1.0f}, {0}});
    const int32_t y = qtensor(b, "y", DType::Int8, {1, 1}, {{1.0f}, {0}});
    b.op(B::FULLY_CONNECTED, {x, w, -1}, {y});
    b.output(y);
    EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::Int8, {1, 3}, {1, 1, 1})})[0]),
              (std::vector<int64_t>{is_signed ? -2 : 24}));
  }
}

} // namespace
} // namespace tico
