// Quantized RMS_NORM and the requantizing GATHER: the two operators the original converter's
// int16 Llama files need (per-row uint8 embedding table feeding int16 activations, int16
// RMS_NORM). Each is compared with the double-precision reference on dequantized inputs.
#include "interp_quant_test_support.h"

namespace tico {
namespace {

using namespace test;
using namespace test::quant;
using B = circle::BuiltinOperator;

TEST(InterpQuantRmsNorm, Int16CodesWithInt16GammaWithinHalfAStep) {
  const int64_t rows = 6, depth = 16;
  const QParams qx{{4e-4f}, {0}}, qg{{3.0e-5f}, {0}}, qo{{2e-4f}, {0}};
  const std::vector<int64_t> x = randomCodes(static_cast<std::size_t>(rows * depth), -20000, 20000, 3);
  const std::vector<int64_t> g = randomCodes(static_cast<std::size_t>(depth), 10000, 32767, 5);
  ModelBuilder b;
  const int32_t in = qinput(b, "x", DType::Int16, {static_cast<int32_t>(rows), static_cast<int32_t>(depth)}, qx);
  const int32_t gamma = qconst(b, "gamma", DType::Int16, {depth}, g, qg);
  const int32_t out = qtensor(b, "y", DType::Int16, {static_cast<int32_t>(rows), static_cast<int32_t>(depth)}, qo);
  circle::RmsNormOptionsT options;
  options.epsilon = 1e-6f;
  b.op(B::RMS_NORM, {in, gamma}, {out}, ModelBuilder::options(options));
  b.output(out);
  const std::vector<int64_t> got = codesOf(*runModel(b.build(), {codes(DType::Int16, {rows, depth}, x)})[0]);
  std::vector<double> ideal;
  for (int64_t r = 0; r < rows; ++r) {
    double squares = 0;
    for (int64_t i = 0; i < depth; ++i)
      squares += real(x[r * depth + i], qx) * real(x[r * depth + i], qx);
    const double inv = 1.0 / std::sqrt(squares / depth + 1e-6);
    for (int64_t i = 0; i < depth; ++i)
      ideal.push_back(idealCode(real(x[r * depth + i], qx) * inv * real(g[i], qg), qo, DType::Int16));
  }
  EXPECT_LE(maxStepError(got, ideal, "RMS_NORM int16, int16 gamma"), 0.5 + 1e-6);
}

TEST(InterpQuantRmsNorm, Uint8InputFloatGammaAndSaturation) {
  const QParams qx{{0.05f}, {128}}, qo{{0.01f}, {100}};
  ModelBuilder b;
  const int32_t in = qinput(b, "x", DType::UInt8, {1, 4}, qx);
  const int32_t gamma = b.constant("gamma", f32({4}, {1.0f, -1.0f, 0.5f, 3.0f}));
  const int32_t out = qtensor(b, "y", DType::UInt8, {1, 4}, qo);
  b.op(B::RMS_NORM, {in, gamma}, {out}, ModelBuilder::options(circle::RmsNormOptionsT{}));
  b.output(out);
  const std::vector<int64_t> x{148, 108, 128, 168}; // reals 1, -1, 0, 2
  const std::vector<int64_t> got = codesOf(*runModel(b.build(), {codes(DType::UInt8, {1, 4}, x)})[0]);
  const double inv = 1.0 / std::sqrt((1.0 + 1.0 + 0.0 + 4.0) / 4.0);
  const std::vector<double> ideal{idealCode(1 * inv * 1.0, qo, DType::UInt8), idealCode(-1 * inv * -1.0, qo, DType::UInt8),
                                  idealCode(0.0, qo, DType::UInt8), idealCode(2 * inv * 3.0, qo, DType::UInt8)};
  EXPECT_LE(maxStepError(got, ideal, "RMS_NORM uint8, float gamma"), 0.5 + 1e-6);
  EXPECT_EQ(got[3], 255); // 4.9 is beyond the output's range: clamped, not wrapped
}

TEST(InterpQuantRmsNorm, PerChannelInputIsRejectedBeforeRunning) {
  ModelBuilder b;
  const int32_t in = qinput(b, "x", DType::Int16, {2, 2}, {{0.1f, 0.2f}, {0, 0}, 1});
  const int32_t gamma = b.constant("gamma", f32({2}, {1, 1}));
  const int32_t out = qtensor(b, "y", DType::Int16, {2, 2}, {{0.1f}, {0}});
  b.op(B::RMS_NORM, {in, gamma}, {out}, ModelBuilder::options(circle::RmsNormOptionsT{}));
  b.output(out);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "RMS_NORM")) << message;
  EXPECT_TRUE(contains(message, "per channel")) << message;
}

TEST(InterpQuantGather, PerRowTableRequantizesIntoInt16) {
  // A [4, 3] uint8 table with one scale and zero point per row, gathered into int16.
  const QParams table{{0.02f, 0.5f, 0.001f, 0.1f}, {10, 128, 0, 255}, 0}, qo{{1e-3f}, {0}};
  const std::vector<int64_t> t{0, 10, 255, 128, 129, 0, 7, 200, 255, 255, 0, 128};
  ModelBuilder b;
  const int32_t tab = qconst(b, "table", DType::UInt8, {4, 3}, t, table);
  const int32_t ids = b.input("ids", DType::Int64, {1, 3});
  const int32_t out = qtensor(b, "emb", DType::Int16, {1, 3, 3}, qo);
  b.op(B::GATHER, {tab, ids}, {out}, ModelBuilder::options(circle::GatherOptionsT{}));
  b.output(out);
  const std::vector<int64_t> idx{3, 1, 2};
  const std::vector<int64_t> got = codesOf(*runModel(b.build(), {codes(DType::Int64, {1, 3}, idx)})[0]);
  std::vector<double> ideal;
  for (int64_t r : idx)
    for (int64_t i = 0; i < 3; ++i)
      ideal.push_back(idealCode(real(t[r * 3 + i], table, static_cast<std::size_t>(r)), qo, DType::Int16));
  EXPECT_LE(maxStepError(got, ideal, "GATHER per-row uint8 -> int16"), 0.5 + 1e-6);
  EXPECT_EQ(got[5], -32768); // row 1: 0.5 * (0 - 128) = -64 is beyond the int16 grid of 1e-3
}

TEST(InterpQuantGather, SameParametersStillMoveCodesAndOtherAxesAreRejected) {
  const QParams q{{0.1f}, {3}};
  {
    ModelBuilder b;
    const int32_t tab = qconst(b, "table", DType::Int8, {3, 2}, {1, 2, 3, 4, 5, 6}, q);
    const int32_t ids = b.input("ids", DType::Int32, {2});
    const int32_t out = qtensor(b, "y", DType::Int8, {2, 2}, q);
    b.op(B::GATHER, {tab, ids}, {out}, ModelBuilder::options(circle::GatherOptionsT{}));
    b.output(out);
    EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::Int32, {2}, {2, 0})})[0]), (std::vector<int64_t>{5, 6, 1, 2}));
  }
  ModelBuilder b;
  const int32_t tab = qconst(b, "table", DType::UInt8, {3, 2}, {1, 2, 3, 4, 5, 6}, {{0.1f, 0.2f}, {0, 0}, 1});
  const int32_t ids = b.input("ids", DType::Int32, {2});
  const int32_t out = qtensor(b, "y", DType::Int16, {2, 2}, {{0.01f}, {0}});
  b.op(B::GATHER, {tab, ids}, {out}, ModelBuilder::options(circle::GatherOptionsT{}));
  b.output(out);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "per channel on dim 1 but gathered on dim 0")) << message;
}

} // namespace
} // namespace tico
