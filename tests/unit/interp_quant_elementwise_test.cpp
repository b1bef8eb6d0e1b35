// Quantized ADD/SUB/MUL (broadcasting), QUANTIZE requantization, RELU, NEG, LOGISTIC/TANH, SOFTMAX, MEAN
// and CONCATENATION against real arithmetic in double on the dequantized inputs (within 1
// output step), plus hand-checked codes.
#include "interp_quant_test_support.h"

namespace tico {
namespace {

using namespace test;
using namespace test::quant;
using B = circle::BuiltinOperator;

QParams paramsFor(DType dtype, float scale, int64_t zp8) {
  return {{scale}, {dtype == DType::Int16 ? 0 : (dtype == DType::UInt8 ? 128 + zp8 : zp8)}};
}

std::string name(DType dtype) { return std::string(dtypeName(dtype)); }

TEST(InterpQuantElementwise, AddSubMulMatchRealArithmeticWithinOneStep) {
  for (DType dtype : {DType::UInt8, DType::Int8, DType::Int16}) {
    const float unit = dtype == DType::Int16 ? 1.0f / 256.0f : 1.0f;
    const QParams aq = paramsFor(dtype, 0.02f * unit, 3), bq = paramsFor(dtype, 0.035f * unit, -11);
    for (B op : {B::ADD, B::SUB, B::MUL}) {
      const QParams oq = paramsFor(dtype, (op == B::MUL ? 0.1f : 0.05f) * unit * (op == B::MUL && dtype == DType::Int16 ? 64.0f : 1.0f), 7);
      const auto a = randomCodes(24, lowest(dtype), highest(dtype), 41);
      const auto c = randomCodes(4, lowest(dtype), highest(dtype), 42);
      ModelBuilder b;
      const int32_t x = qinput(b, "a", dtype, {2, 3, 4}, aq);
      const int32_t y = qinput(b, "b", dtype, {4}, bq); // broadcast along the last dim
      const int32_t z = qtensor(b, "z", dtype, {2, 3, 4}, oq);
      b.op(op, {x, y}, {z});
      b.output(z);
      const auto got = codesOf(*runModel(b.build(), {codes(dtype, {2, 3, 4}, a), codes(dtype, {4}, c)})[0]);
      std::vector<double> ideal;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double u = real(a[i], aq), v = real(c[i % 4], bq);
        ideal.push_back(idealCode(op == B::ADD ? u + v : (op == B::SUB ? u - v : u * v), oq, dtype));
      }
      EXPECT_LE(maxStepError(got, ideal, std::string(circle::EnumNameBuiltinOperator(op)) + " " + name(dtype) + " broadcast"), 1.0);
    }
  }
}

TEST(InterpQuantElementwise, HandCheckedAddWithRelu) {
  // a = [-1, 2] (scale 0.5, zp 10: codes 8, 14), b = [0.5, 0.5] (scale 0.25, zp 0: codes 2, 2);
  // relu(a + b) = [0, 2.5] -> output scale 0.5, zp 100: [100, 105].
  ModelBuilder b;
  const int32_t x = qinput(b, "a", DType::UInt8, {2}, {{0.5f}, {10}});
  const int32_t y = qinput(b, "b", DType::UInt8, {2}, {{0.25f}, {0}});
  const int32_t z = qtensor(b, "z", DType::UInt8, {2}, {{0.5f}, {100}});
  circle::AddOptionsT o;
  o.fused_activation_function = circle::ActivationFunctionType::RELU;
  b.op(B::ADD, {x, y}, {z}, ModelBuilder::options(o));
  b.output(z);
  EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::UInt8, {2}, {8, 14}), codes(DType::UInt8, {2}, {2, 2})})[0]),
            (std::vector<int64_t>{100, 105}));
}

TEST(InterpQuantRequantize, QuantizeBetweenTypesAndScales) {
  struct Case {
    DType from, to;
    QParams in, out;
  };
  const Case cases[] = {
      {DType::UInt8, DType::Int8, {{0.1f}, {128}}, {{0.1f}, {0}}},
      {DType::Int8, DType::Int16, {{0.05f}, {-3}}, {{0.05f / 256.0f}, {0}}},
      {DType::Int16, DType::UInt8, {{0.001f}, {0}}, {{0.15f}, {128}}},
      {DType::UInt8, DType::UInt8, {{0.02f}, {7}}, {{0.07f}, {200}}},
  };
  for (const Case &c : cases) {
    const auto x = randomCodes(64, lowest(c.from), highest(c.from), 51);
    ModelBuilder b;
    const int32_t in = qinput(b, "x", c.from, {64}, c.in);
    const int32_t out = qtensor(b, "y", c.to, {64}, c.out);
    b.op(B::QUANTIZE, {in}, {out});
    b.output(out);
    const auto got = codesOf(*runModel(b.build(), {codes(c.from, {64}, x)})[0]);
    std::vector<double> ideal;
    for (int64_t q : x)
      ideal.push_back(idealCode(real(q, c.in), c.out, c.to));
    // Within 1 step, not 0.5: the 32-bit pipeline rounds twice (doubling high multiply, then the
    // shift), as gemmlowp/TFLite do, which costs up to ~0.75 step for small inputs.
    EXPECT_LE(maxStepError(got, ideal, "QUANTIZE " + name(c.from) + " -> " + name(c.to)), 1.0);
  }
  // uint8 zp 128 -> int8 zp 0 at one scale is the exact shift by 128.
  ModelBuilder b;
  const int32_t in = qinput(b, "x", DType::UInt8, {3}, {{0.1f}, {128}});
  const int32_t out = qtensor(b, "y", DType::Int8, {3}, {{0.1f}, {0}});
  b.op(B::QUANTIZE, {in}, {out});
  b.output(out);
  EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::UInt8, {3}, {0, 128, 255})})[0]),
            (std::vector<int64_t>{-128, 0, 127}));
}

TEST(InterpQuantActivations, ReluRequantizesAndClampsAtRealZero) {
  // The original converter's relu between two quantized tensors: other parameters on each side
  // (uint8 with the output zero point at 0, int8 and int16 symmetric, where the clamp at the
  // output zero point does the relu), and one case with the same parameters on both.
  struct Case {
    DType dtype;
    QParams in, out;
  };
  const Case cases[] = {
      {DType::UInt8, {{0.0114105325f}, {135}}, {{0.005375976f}, {0}}},
      {DType::Int8, {{0.04f}, {-5}}, {{0.03f}, {0}}},
      {DType::Int16, {{6.0742295e-05f}, {0}}, {{3.1e-05f}, {0}}},
      {DType::Int16, {{6.0742295e-05f}, {0}}, {{6.0742295e-05f}, {0}}},
  };
  for (const Case &c : cases) {
    const auto x = randomCodes(200, lowest(c.dtype), highest(c.dtype), 71);
    ModelBuilder b;
    const int32_t in = qinput(b, "x", c.dtype, {200}, c.in);
    const int32_t out = qtensor(b, "y", c.dtype, {200}, c.out);
    b.op(B::RELU, {in}, {out});
    b.output(out);
    const auto got = codesOf(*runModel(b.build(), {codes(c.dtype, {200}, x)})[0]);
    std::vector<double> ideal;
    for (int64_t q : x)
      ideal.push_back(idealCode(std::max(0.0, real(q, c.in)), c.out, c.dtype));
    EXPECT_LE(maxStepError(got, ideal, "RELU " + name(c.dtype)), 1.0);
    for (int64_t code : got)
      EXPECT_GE(code, c.out.zp()) << "RELU " << name(c.dtype) << " left a code below real 0";
  }
  // Hand-checked: scale 0.5 zp 10 -> scale 0.25 zp 0: codes 4, 10, 11, 30 are -3, 0, 0.5, 10.
  ModelBuilder b;
  const int32_t in = qinput(b, "x", DType::UInt8, {4}, {{0.5f}, {10}});
  const int32_t out = qtensor(b, "y", DType::UInt8, {4}, {{0.25f}, {0}});
  b.op(B::RELU, {in}, {out});
  b.output(out);
  EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::UInt8, {4}, {4, 10, 11, 30})})[0]),
            (std::vector<int64_t>{0, 0, 2, 40}));
}

TEST(InterpQuantActivations, NegIsExactOnTheConvertersGridsAndRequantizesOtherwise) {
  // The parameters propagate-qparam-forward gives a neg: the same ones for a signed zero point
  // of 0 (exact but for the one code -min, which saturates), the mirrored zero point for
  // uint8 (exact everywhere); and a neg followed by other parameters (within one step).
  struct Case {
    DType dtype;
    QParams in, out;
    bool exact;
  };
  const Case cases[] = {
      {DType::Int16, {{5.1e-05f}, {0}}, {{5.1e-05f}, {0}}, true},
      {DType::Int8, {{0.04f}, {0}}, {{0.04f}, {0}}, true},
      {DType::UInt8, {{0.0104631f}, {96}}, {{0.0104631f}, {159}}, true},
      {DType::UInt8, {{0.0104631f}, {96}}, {{0.02f}, {30}}, false},
      {DType::Int16, {{5.1e-05f}, {0}}, {{7.3e-05f}, {0}}, false},
  };
  for (const Case &c : cases) {
    auto x = randomCodes(300, lowest(c.dtype), highest(c.dtype), 73);
    x.push_back(lowest(c.dtype));
    x.push_back(highest(c.dtype));
    const int64_t n = static_cast<int64_t>(x.size());
    ModelBuilder b;
    const int32_t in = qinput(b, "x", c.dtype, {n}, c.in);
    const int32_t out = qtensor(b, "y", c.dtype, {n}, c.out);
    b.op(B::NEG, {in}, {out});
    b.output(out);
    const auto got = codesOf(*runModel(b.build(), {codes(c.dtype, {n}, x)})[0]);
    ASSERT_EQ(got.size(), x.size());
    std::vector<double> ideal;
    for (int64_t q : x)
      ideal.push_back(idealCode(-real(q, c.in), c.out, c.dtype));
    EXPECT_LE(maxStepError(got, ideal, "NEG " + name(c.dtype)), 1.0);
    if (!c.exact)
      continue;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const int64_t want = std::min<int64_t>(c.out.zp() - (x[i] - c.in.zp()), highest(c.dtype));
      EXPECT_EQ(got[i], want) << "NEG " << name(c.dtype) << " of code " << x[i];
    }
  }
}

TEST(InterpQuantActivations, LogisticAndTanhTablesAreWithinHalfAStep) {
  for (DType dtype : {DType::UInt8, DType::Int8, DType::Int16}) {
    for (B op : {B::LOGISTIC, B::TANH}) {
      const QParams in = paramsFor(dtype, dtype == DType::Int16 ? 8.0f / 32768.0f : 0.06f, 0);
      const QParams out = op == B::LOGISTIC
                              ? (dtype == DType::UInt8 ? QParams{{1.0f / 256.0f}, {0}}
                                                       : (dtype == DType::Int8 ? QParams{{1.0f / 256.0f}, {-128}} : QParams{{1.0f / 32768.0f}, {0}}))
                              : (dtype == DType::UInt8 ? QParams{{1.0f / 128.0f}, {128}}
                                                       : (dtype == DType::Int8 ? QParams{{1.0f / 128.0f}, {0}} : QParams{{1.0f / 32768.0f}, {0}}));
      const auto x = randomCodes(300, lowest(dtype), highest(dtype), 61);
      ModelBuilder b;
      const int32_t xi = qinput(b, "x", dtype, {300}, in);
      const int32_t yo = qtensor(b, "y", dtype, {300}, out);
      b.op(op, {xi}, {yo});
      b.output(yo);
      const auto got = codesOf(*runModel(b.build(), {codes(dtype, {300}, x)})[0]);
      std::vector<double> ideal;
      for (int64_t q : x) {
        const double v = real(q, in);
        ideal.push_back(idealCode(op == B::LOGISTIC ? 1.0 / (1.0 + std::exp(-v)) : std::tanh(v), out, dtype));
      }
      EXPECT_LE(maxStepError(got, ideal, std::string(circle::EnumNameBuiltinOperator(op)) + " " + name(dtype)), 0.5 + 1e-6);
    }
  }
}

TEST(InterpQuantSoftmax, MatchesRealSoftmaxWithinOneStep) {
  for (DType dtype : {DType::UInt8, DType::Int8, DType::Int16}) {
    const QParams in = paramsFor(dtype, dtype == DType::Int16 ? 10.0f / 32768.0f : 0.05f, 0);
    const QParams out = dtype == DType::UInt8 ? QParams{{1.0f / 256.0f}, {0}}
                                              : (dtype == DType::Int8 ? QParams{{1.0f / 256.0f}, {-128}} : QParams{{1.0f / 32768.0f}, {0}});
    const int64_t rows = 4, depth = 10;
    const auto x = randomCodes(static_cast<std::size_t>(rows * depth), lowest(dtype), highest(dtype), 71);
    for (float beta : {1.0f, 0.5f}) {
      ModelBuilder b;
      const int32_t xi = qinput(b, "x", dtype, {static_cast<int32_t>(rows), static_cast<int32_t>(depth)}, in);
      const int32_t yo = qtensor(b, "y", dtype, {static_cast<int32_t>(rows), static_cast<int32_t>(depth)}, out);
      circle::SoftmaxOptionsT o;
      o.beta = beta;
      b.op(B::SOFTMAX, {xi}, {yo}, ModelBuilder::options(o));
      b.output(yo);
      const auto got = codesOf(*runModel(b.build(), {codes(dtype, {rows, depth}, x)})[0]);
      std::vector<double> ideal;
      for (int64_t r = 0; r < rows; ++r) {
        double top = -INFINITY, sum = 0.0;
        for (int64_t i = 0; i < depth; ++i)
          top = std::max(top, real(x[static_cast<std::size_t>(r * depth + i)], in));
        for (int64_t i = 0; i < depth; ++i)
          sum += std::exp(beta * (real(x[static_cast<std::size_t>(r * depth + i)], in) - top));
        for (int64_t i = 0; i < depth; ++i)
          ideal.push_back(idealCode(std::exp(beta * (real(x[static_cast<std::size_t>(r * depth + i)], in) - top)) / sum, out, dtype));
      }
      EXPECT_LE(maxStepError(got, ideal, "SOFTMAX " + name(dtype) + " beta " + std::to_string(beta).substr(0, 3)), 1.0);
    }
  }
}

TEST(InterpQuantMean, MatchesRealMeanWithinOneStep) {
  for (DType dtype : {DType::UInt8, DType::Int8, DType::Int16}) {
    const QParams in = paramsFor(dtype, 0.03f, 5), out = paramsFor(dtype, 0.02f, -9);
    const auto x = randomCodes(2 * 3 * 5, lowest(dtype), highest(dtype), 81);
    ModelBuilder b;
    const int32_t xi = qinput(b, "x", dtype, {2, 3, 5}, in);
    const int32_t axes = b.constant("axes", i32({2}, {0, 2}));
    const int32_t yo = qtensor(b, "y", dtype, {1, 3, 1}, out);
    circle::ReducerOptionsT o;
    o.keep_dims = true;
    b.op(B::MEAN, {xi, axes}, {yo}, ModelBuilder::options(o));
    b.output(yo);
    const auto got = codesOf(*runModel(b.build(), {codes(dtype, {2, 3, 5}, x)})[0]);
    std::vector<double> ideal;
    for (int64_t j = 0; j < 3; ++j) {
      double sum = 0;
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t k = 0; k < 5; ++k)
          sum += real(x[static_cast<std::size_t>((i * 3 + j) * 5 + k)], in);
      ideal.push_back(idealCode(sum / 10.0, out, dtype));
    }
    EXPECT_LE(maxStepError(got, ideal, "MEAN " + name(dtype) + " axes (0, 2)"), 1.0);
  }
}

TEST(InterpQuantConcatenation, RequantizesInputsWithOtherParameters) {
  for (DType dtype : {DType::UInt8, DType::Int8, DType::Int16}) {
    const QParams a = paramsFor(dtype, 0.1f, 0), c = paramsFor(dtype, 0.03f, 20), out = paramsFor(dtype, 0.1f, 0);
    const auto x = randomCodes(6, lowest(dtype), highest(dtype), 91);
    const auto y = randomCodes(4, lowest(dtype), highest(dtype), 92);
    ModelBuilder b;
    const int32_t xi = qinput(b, "a", dtype, {2, 3}, a);
    const int32_t yi = qinput(b, "b", dtype, {2, 2}, c);
    const int32_t zo = qtensor(b, "z", dtype, {2, 5}, out);
    circle::ConcatenationOptionsT o;
    o.axis = 1;
    b.op(B::CONCATENATION, {xi, yi}, {zo}, ModelBuilder::options(o));
    b.output(zo);
    const auto got = codesOf(*runModel(b.build(), {codes(dtype, {2, 3}, x), codes(dtype, {2, 2}, y)})[0]);
    std::vector<double> ideal;
    for (int64_t r = 0; r < 2; ++r) {
      for (int64_t k = 0; k < 3; ++k)
        ideal.push_back(idealCode(real(x[static_cast<std::size_t>(r * 3 + k)], a), out, dtype));
      for (int64_t k = 0; k < 2; ++k)
        ideal.push_back(idealCode(real(y[static_cast<std::size_t>(r * 2 + k)], c), out, dtype));
    }
    EXPECT_LE(maxStepError(got, ideal, "CONCATENATION " + name(dtype) + " requantized"), 1.0); // as QUANTIZE
    // The input with the output's parameters is copied code for code.
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(got[static_cast<std::size_t>(r * 5 + k)], x[static_cast<std::size_t>(r * 3 + k)]);
  }
}

} // namespace
} // namespace tico
