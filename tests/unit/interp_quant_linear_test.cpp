// Quantized FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and BATCH_MATMUL against real
// arithmetic in double on the dequantized operands (within 1 output step), plus hand-checked
// exact codes. Activations uint8/int8/int16, weights uint8/int8 and packed uint4/int4.
#include "interp_quant_test_support.h"

#include <cstdlib>
#include <set>

namespace tico {
namespace {

using namespace test;
using namespace test::quant;
using B = circle::BuiltinOperator;

TEST(InterpQuantFullyConnected, HandCheckedCodes) {
  // x = [1, 2] (uint8, scale 0.5, zp 2), w = [[1, 2], [-1, 0.5]] (int8, scale 0.25),
  // bias = [1, -2] (int32, scale 0.125): y = [1 + 4 + 1, -1 + 1 - 2] = [6, -2];
  // output scale 0.5, zp 10 -> [22, 6].
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::UInt8, {1, 2}, {{0.5f}, {2}});
  const int32_t w = qconst(b, "w", DType::Int8, {2, 2}, {4, 8, -4, 2}, {{0.25f}, {0}});
  const int32_t bias = qconst(b, "b", DType::Int32, {2}, {8, -16}, {{0.125f}, {0}});
  const int32_t y = qtensor(b, "y", DType::UInt8, {1, 2}, {{0.5f}, {10}});
  b.op(B::FULLY_CONNECTED, {x, w, bias}, {y});
  b.output(y);
  auto out = runModel(b.build(), {codes(DType::UInt8, {1, 2}, {4, 6})});
  EXPECT_EQ(codesOf(*out[0]), (std::vector<int64_t>{22, 6}));
}

struct FcCase {
  DType input;
  DType weights;      // UInt8/Int8; with `four_bit` the packed UINT4/INT4 of that signedness
  bool four_bit;
  bool per_channel;
  circle::ActivationFunctionType activation;
  const char *label;
};

// rows 1 (a decode step: units shared over the threads, one vector dot each) and 3 (weight rows
// widened once for every input row); 70 units cross the kernel's blocks of 64; a depth of 19 has
// a vector body and a tail.
void checkFullyConnected(const FcCase &c, int64_t rows = 3, int64_t units = 5) {
  const int64_t depth = 19;
  // int16 codes span 256x the 8-bit range: scales shrink by 256 so the outputs stay unclipped.
  const float unit = c.input == DType::Int16 ? 1.0f / 256.0f : 1.0f;
  const QParams in{{0.03f * unit}, {c.input == DType::UInt8 ? 131 : (c.input == DType::Int8 ? -7 : 0)}};
  const bool is_signed = c.weights == DType::Int8;
  const int64_t w_lo = c.four_bit ? (is_signed ? -8 : 0) : lowest(c.weights);
  const int64_t w_hi = c.four_bit ? (is_signed ? 7 : 15) : highest(c.weights);
  QParams wq;
  if (c.per_channel) {
    const float scales[] = {0.02f, 0.011f, 0.05f, 0.007f, 0.03f};
    const int64_t zeros[] = {w_lo + 3, w_hi / 2, w_hi / 2 + 1, w_lo + 1, w_hi / 2};
    wq.scale.clear();
    wq.zero_point.clear();
    for (int64_t u = 0; u < units; ++u) {
      wq.scale.push_back(scales[u % 5]);
      wq.zero_point.push_back(is_signed ? 0 : zeros[u % 5]);
    }
    wq.axis = 0;
  } else {
    wq.scale = {0.017f};
    wq.zero_point = {is_signed ? 0 : w_hi / 2};
  }
  const QParams out{{0.05f * unit}, {c.input == DType::UInt8 ? 120 : (c.input == DType::Int8 ? 5 : 0)}};
  const DType bias_type = c.input == DType::Int16 ? DType::Int64 : DType::Int32;

  const auto x_codes = randomCodes(static_cast<std::size_t>(rows * depth), lowest(c.input), highest(c.input), 11);
  const auto w_codes = randomCodes(static_cast<std::size_t>(units * depth), w_lo, w_hi, 12);
  std::vector<int64_t> bias_codes = randomCodes(static_cast<std::size_t>(units), -2000, 2000, 13);
  QParams bq;
  bq.scale.clear();
  bq.zero_point.clear();
  for (int64_t u = 0; u < units; ++u) {
    bq.scale.push_back(static_cast<float>(in.s() * wq.s(static_cast<std::size_t>(u))));
    bq.zero_point.push_back(0);
  }
  bq.axis = 0;
  if (bq.scale.size() > 1 && !c.per_channel)
    bq.scale.assign(1, bq.scale[0]), bq.zero_point.assign(1, 0);

  ModelBuilder b;
  const int32_t x = qinput(b, "x", c.input, {static_cast<int32_t>(rows), static_cast<int32_t>(depth)}, in);
  const int32_t w = c.four_bit ? qconst4(b, "w", is_signed, {units, depth}, w_codes, wq)
                               : qconst(b, "w", c.weights, {units, depth}, w_codes, wq);
  const int32_t bias = qconst(b, "bias", bias_type, {units}, bias_codes, bq);
  const int32_t y = qtensor(b, "y", c.input, {static_cast<int32_t>(rows), static_cast<int32_t>(units)}, out);
  circle::FullyConnectedOptionsT options;
  options.fused_activation_function = c.activation;
  b.op(B::FULLY_CONNECTED, {x, w, bias}, {y}, ModelBuilder::options(options));
  b.output(y);
  const auto got = codesOf(*runModel(b.build(), {codes(c.input, {rows, depth}, x_codes)})[0]);

  std::vector<double> ideal;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t u = 0; u < units; ++u) {
      const auto uc = static_cast<std::size_t>(u);
      double sum = static_cast<double>(bias_codes[uc]) * in.s() * wq.s(uc);
      for (int64_t k = 0; k < depth; ++k)
        sum += real(x_codes[static_cast<std::size_t>(r * depth + k)], in) *
               real(w_codes[static_cast<std::size_t>(u * depth + k)], wq, uc);
      const double lo = c.activation == circle::ActivationFunctionType::NONE ? -INFINITY : 0.0;
      const double hi = c.activation == circle::ActivationFunctionType::RELU6 ? 6.0 : INFINITY;
      ideal.push_back(idealCode(std::clamp(sum, lo, hi), out, c.input));
    }
  EXPECT_LE(maxStepError(got, ideal, std::string("FULLY_CONNECTED ") + c.label), 1.0);
}

TEST(InterpQuantFullyConnected, MatchesRealArithmeticWithinOneStep) {
  using A = circle::ActivationFunctionType;
  const FcCase cases[] = {
      {DType::UInt8, DType::UInt8, false, true, A::NONE, "u8 x u8 per-channel"},
      {DType::UInt8, DType::UInt8, false, false, A::RELU, "u8 x u8 per-tensor relu"},
      {DType::Int8, DType::Int8, false, true, A::NONE, "i8 x i8 per-channel"},
      {DType::Int8, DType::Int8, false, false, A::RELU6, "i8 x i8 per-tensor relu6"},
      {DType::Int16, DType::Int8, false, true, A::NONE, "i16 x i8 per-channel (int64 bias)"},
      {DType::Int16, DType::UInt8, false, true, A::NONE, "i16 x u8 per-channel"},
      {DType::UInt8, DType::UInt8, true, true, A::NONE, "u8 x uint4 per-channel"},
      {DType::Int16, DType::UInt8, true, true, A::NONE, "i16 x uint4 per-channel"},
      {DType::Int8, DType::Int8, true, true, A::NONE, "i8 x int4 per-channel"},
      {DType::Int16, DType::Int8, true, false, A::NONE, "i16 x int4 per-tensor"},
  };
  for (const FcCase &c : cases) {
    SCOPED_TRACE(c.label);
    checkFullyConnected(c);
  }
}

TEST(InterpQuantFullyConnected, OneRowAndManyUnitsMatchRealArithmeticWithinOneStep) {
  using A = circle::ActivationFunctionType;
  const FcCase cases[] = {
      {DType::Int16, DType::UInt8, false, true, A::NONE, "i16 x u8 per-channel"},
      {DType::Int16, DType::Int8, false, true, A::NONE, "i16 x i8 per-channel"},
      {DType::Int16, DType::UInt8, true, true, A::NONE, "i16 x uint4 per-channel"},
      {DType::UInt8, DType::UInt8, false, true, A::NONE, "u8 x u8 per-channel"},
  };
  for (const FcCase &c : cases)
    for (int64_t rows : {1, 3}) {
      SCOPED_TRACE(std::string(c.label) + ", rows " + std::to_string(rows));
      checkFullyConnected(c, rows, 70);
    }
}

TEST(InterpQuantFullyConnected, LibraryProductsEqualTheLoopsCodeForCode) {
  // 8-bit FULLY_CONNECTED multiplies on oneDNN where that is exact (VNNI CPUs); the codes must
  // be the loops' (TICO_INTEGER_GEMM=loops) for every type pair, per-channel zero points, 4-bit
  // weights, shapes across the 128-wide tiles and extreme codes with a long depth (accumulators
  // past 2^24, where a float path would round).
  struct Shape3 {
    int64_t rows, units, depth;
  };
  const Shape3 shapes[] = {{1, 5, 3}, {130, 200, 67}, {3, 7, 2048}};
  const std::pair<DType, DType> types[] = {{DType::UInt8, DType::UInt8}, {DType::UInt8, DType::Int8},
                                           {DType::Int8, DType::Int8}, {DType::Int8, DType::UInt8}};
  for (const auto &[xt, wt] : types)
    for (bool four_bit : {false, true})
      for (const Shape3 &s : shapes) {
        const bool is_signed = wt == DType::Int8;
        const int64_t w_lo = four_bit ? (is_signed ? -8 : 0) : lowest(wt), w_hi = four_bit ? (is_signed ? 7 : 15) : highest(wt);
        QParams wq{{}, {}, 0};
        for (int64_t u = 0; u < s.units; ++u) {
          wq.scale.push_back(0.001f * static_cast<float>(1 + u % 7));
          wq.zero_point.push_back(is_signed ? 0 : w_lo + (u * 5) % (w_hi - w_lo + 1));
        }
        const QParams in{{0.02f}, {xt == DType::UInt8 ? 3 : -120}};
        const QParams out{{s.depth > 1000 ? 40.0f : (four_bit ? 0.02f : 0.2f)}, {xt == DType::UInt8 ? 128 : 0}};
        // Long rows hold extreme codes (the largest products), short ones random codes.
        auto x_codes = randomCodes(static_cast<std::size_t>(s.rows * s.depth), lowest(xt), highest(xt), 21);
        auto w_codes = randomCodes(static_cast<std::size_t>(s.units * s.depth), w_lo, w_hi, 22);
        if (s.depth > 1000) {
          std::fill(x_codes.begin(), x_codes.end(), highest(xt));
          for (std::size_t i = 0; i < w_codes.size(); ++i)
            w_codes[i] = i % 3 == 0 ? w_lo : w_hi;
        }
        ModelBuilder b;
        const int32_t x = qinput(b, "x", xt, {static_cast<int32_t>(s.rows), static_cast<int32_t>(s.depth)}, in);
        const int32_t w = four_bit ? qconst4(b, "w", is_signed, {s.units, s.depth}, w_codes, wq)
                                   : qconst(b, "w", wt, {s.units, s.depth}, w_codes, wq);
        const int32_t y = qtensor(b, "y", xt, {static_cast<int32_t>(s.rows), static_cast<int32_t>(s.units)}, out);
        b.op(B::FULLY_CONNECTED, {x, w, -1}, {y}, ModelBuilder::options(circle::FullyConnectedOptionsT{}));
        b.output(y);
        const auto model = b.build();
        const auto feed = codes(xt, {s.rows, s.depth}, x_codes);
        const auto library = codesOf(*runModel(model, {feed})[0]);
        ::setenv("TICO_INTEGER_GEMM", "loops", 1);
        const auto loops = codesOf(*runModel(model, {feed})[0]);
        ::unsetenv("TICO_INTEGER_GEMM");
        EXPECT_EQ(library, loops) << dtypeName(xt) << " x " << dtypeName(wt) << (four_bit ? " (4-bit)" : "") << " "
                                  << s.rows << "x" << s.units << "x" << s.depth;
        // Not vacuous: the codes are not all clamped to one value.
        EXPECT_GT(std::set<int64_t>(loops.begin(), loops.end()).size(), 1u)
            << dtypeName(xt) << " x " << dtypeName(wt) << (four_bit ? " (4-bit)" : "") << " " << s.rows << "x" << s.units
            << "x" << s.depth;
      }
}

TEST(InterpQuantFullyConnected, BiasInTheWrongScaleIsRejectedBeforeRunning) {
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::Int8, {1, 2}, {{0.5f}, {0}});
  const int32_t w = qconst(b, "w", DType::Int8, {1, 2}, {1, 1}, {{0.25f}, {0}});
  const int32_t bias = qconst(b, "b", DType::Int32, {1}, {8}, {{0.5f}, {0}}); // should be 0.125
  const int32_t y = qtensor(b, "y", DType::Int8, {1, 1}, {{0.5f}, {0}});
  b.op(B::FULLY_CONNECTED, {x, w, bias}, {y});
  b.output(y);
  const std::string message = errorOf([&] { runModel(b.build(), {codes(DType::Int8, {1, 2}, {1, 1})}); });
  EXPECT_TRUE(contains(message, "bias 'b'")) << message;
  EXPECT_TRUE(contains(message, "scale")) << message;
}

// Reference convolution in double (NHWC, OHWI, groups), SAME or VALID padding.
struct ConvGeometry {
  int64_t n, h, w, c, oc, kh, kw, stride, dilation;
  circle::Padding padding;
  bool depthwise;
};

void checkConvolution(const ConvGeometry &g, DType act, DType wtype, bool per_channel, const std::string &label) {
  const int64_t multiplier = g.depthwise ? g.oc / g.c : 1;
  const int64_t group_c = g.depthwise ? 1 : g.c;
  const int64_t eff_h = (g.kh - 1) * g.dilation + 1, eff_w = (g.kw - 1) * g.dilation + 1;
  const bool same = g.padding == circle::Padding::SAME;
  const int64_t oh = same ? (g.h + g.stride - 1) / g.stride : (g.h - eff_h) / g.stride + 1;
  const int64_t ow = same ? (g.w + g.stride - 1) / g.stride : (g.w - eff_w) / g.stride + 1;
  const int64_t pad_h = same ? std::max<int64_t>((oh - 1) * g.stride + eff_h - g.h, 0) / 2 : 0;
  const int64_t pad_w = same ? std::max<int64_t>((ow - 1) * g.stride + eff_w - g.w, 0) / 2 : 0;

  const float unit = act == DType::Int16 ? 1.0f / 256.0f : 1.0f; // keeps int16 outputs unclipped
  const QParams in{{0.02f * unit}, {act == DType::UInt8 ? 100 : (act == DType::Int8 ? 9 : 0)}};
  QParams wq;
  const bool is_signed = wtype == DType::Int8;
  if (per_channel) {
    wq.scale.clear();
    wq.zero_point.clear();
    for (int64_t o = 0; o < g.oc; ++o) {
      wq.scale.push_back(0.004f + 0.003f * static_cast<float>(o % 4));
      wq.zero_point.push_back(is_signed ? 0 : 120 + o % 5);
    }
    wq.axis = g.depthwise ? 3 : 0;
  } else {
    wq = {{0.006f}, {is_signed ? 0 : 128}};
  }
  const QParams out{{0.03f * unit}, {act == DType::UInt8 ? 128 : (act == DType::Int8 ? -3 : 0)}};
  const std::vector<int64_t> filter_shape = g.depthwise ? std::vector<int64_t>{1, g.kh, g.kw, g.oc}
                                                        : std::vector<int64_t>{g.oc, g.kh, g.kw, group_c};
  const auto x_codes = randomCodes(static_cast<std::size_t>(g.n * g.h * g.w * g.c), lowest(act), highest(act), 21);
  const auto w_codes = randomCodes(static_cast<std::size_t>(g.oc * g.kh * g.kw * group_c), lowest(wtype), highest(wtype), 22);
  const auto b_codes = randomCodes(static_cast<std::size_t>(g.oc), -500, 500, 23);
  QParams bq{{}, {}, 0};
  for (int64_t o = 0; o < g.oc; ++o) {
    bq.scale.push_back(static_cast<float>(in.s() * wq.s(per_channel ? static_cast<std::size_t>(o) : 0)));
    bq.zero_point.push_back(0);
  }

  ModelBuilder b;
  const int32_t x = qinput(b, "x", act, {static_cast<int32_t>(g.n), static_cast<int32_t>(g.h), static_cast<int32_t>(g.w), static_cast<int32_t>(g.c)}, in);
  const int32_t w = qconst(b, "w", wtype, filter_shape, w_codes, wq);
  const int32_t bias = qconst(b, "bias", act == DType::Int16 ? DType::Int64 : DType::Int32, {g.oc}, b_codes, bq);
  const int32_t y = qtensor(b, "y", act, {static_cast<int32_t>(g.n), static_cast<int32_t>(oh), static_cast<int32_t>(ow), static_cast<int32_t>(g.oc)}, out);
  if (g.depthwise) {
    circle::DepthwiseConv2DOptionsT o;
    o.padding = g.padding;
    o.stride_h = o.stride_w = static_cast<int32_t>(g.stride);
    o.dilation_h_factor = o.dilation_w_factor = static_cast<int32_t>(g.dilation);
    o.depth_multiplier = static_cast<int32_t>(multiplier);
    b.op(B::DEPTHWISE_CONV_2D, {x, w, bias}, {y}, ModelBuilder::options(o));
  } else {
    circle::Conv2DOptionsT o;
    o.padding = g.padding;
    o.stride_h = o.stride_w = static_cast<int32_t>(g.stride);
    o.dilation_h_factor = o.dilation_w_factor = static_cast<int32_t>(g.dilation);
    b.op(B::CONV_2D, {x, w, bias}, {y}, ModelBuilder::options(o));
  }
  b.output(y);
  const auto model = b.build();
  const auto feed = codes(act, {g.n, g.h, g.w, g.c}, x_codes);
  const auto got = codesOf(*runModel(model, {feed})[0]);
  // 8-bit CONV_2D multiplies on oneDNN where that is exact: the same codes as the loops.
  ::setenv("TICO_INTEGER_GEMM", "loops", 1);
  const auto loops = codesOf(*runModel(model, {feed})[0]);
  ::unsetenv("TICO_INTEGER_GEMM");
  EXPECT_EQ(got, loops) << label << ": the library's codes differ from the loops'";

  std::vector<double> ideal;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t y0 = 0; y0 < oh; ++y0)
      for (int64_t x0 = 0; x0 < ow; ++x0)
        for (int64_t o = 0; o < g.oc; ++o) {
          const auto oc = static_cast<std::size_t>(per_channel ? o : 0);
          double sum = static_cast<double>(b_codes[static_cast<std::size_t>(o)]) * in.s() * wq.s(oc);
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const int64_t iy = y0 * g.stride + ky * g.dilation - pad_h, ix = x0 * g.stride + kx * g.dilation - pad_w;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
                continue; // zero padding in real terms
              for (int64_t k = 0; k < group_c; ++k) {
                const int64_t ic = g.depthwise ? o / multiplier : k;
                const int64_t widx = g.depthwise ? (ky * g.kw + kx) * g.oc + o : ((o * g.kh + ky) * g.kw + kx) * group_c + k;
                sum += real(x_codes[static_cast<std::size_t>(((n * g.h + iy) * g.w + ix) * g.c + ic)], in) *
                       real(w_codes[static_cast<std::size_t>(widx)], wq, oc);
              }
            }
          ideal.push_back(idealCode(sum, out, act));
        }
  EXPECT_LE(maxStepError(got, ideal, label), 1.0);
}

TEST(InterpQuantConv2D, MatchesRealArithmeticWithinOneStep) {
  const ConvGeometry same{2, 7, 6, 3, 4, 3, 3, 2, 1, circle::Padding::SAME, false};
  const ConvGeometry valid{1, 6, 6, 4, 6, 2, 3, 1, 2, circle::Padding::VALID, false};
  checkConvolution(same, DType::UInt8, DType::UInt8, true, "CONV_2D u8 x u8 per-channel SAME s2");
  checkConvolution(same, DType::Int8, DType::Int8, true, "CONV_2D i8 x i8 per-channel SAME s2");
  checkConvolution(valid, DType::UInt8, DType::UInt8, false, "CONV_2D u8 x u8 per-tensor VALID d2");
  checkConvolution(same, DType::Int16, DType::Int8, true, "CONV_2D i16 x i8 per-channel SAME s2");
  checkConvolution(valid, DType::Int16, DType::UInt8, true, "CONV_2D i16 x u8 per-channel VALID d2");
}

TEST(InterpQuantDepthwiseConv2D, MatchesRealArithmeticWithinOneStep) {
  const ConvGeometry same{1, 6, 5, 3, 6, 3, 3, 1, 1, circle::Padding::SAME, true};
  const ConvGeometry strided{2, 7, 7, 4, 4, 3, 2, 2, 1, circle::Padding::SAME, true};
  checkConvolution(same, DType::UInt8, DType::UInt8, true, "DEPTHWISE u8 x u8 per-channel x2");
  checkConvolution(strided, DType::Int8, DType::Int8, true, "DEPTHWISE i8 x i8 per-channel s2");
  checkConvolution(same, DType::Int16, DType::Int8, true, "DEPTHWISE i16 x i8 per-channel x2");
  checkConvolution(strided, DType::UInt8, DType::UInt8, false, "DEPTHWISE u8 x u8 per-tensor s2");
}

// TRANSPOSE_CONV against a scatter reference in double (the kernel gathers per output position).
struct TransposeConvCase {
  int64_t n, h, w, c, oc, kh, kw, stride;
  circle::Padding padding;
  DType act, wtype;
  bool per_channel, bias;
  circle::ActivationFunctionType activation;
  const char *label;
};

void checkTransposeConv(const TransposeConvCase &g) {
  const bool same = g.padding == circle::Padding::SAME;
  const int64_t oh = same ? g.h * g.stride : (g.h - 1) * g.stride + g.kh;
  const int64_t ow = same ? g.w * g.stride : (g.w - 1) * g.stride + g.kw;
  const int64_t pad_y = same ? std::max<int64_t>((g.h - 1) * g.stride + g.kh - oh, 0) / 2 : 0;
  const int64_t pad_x = same ? std::max<int64_t>((g.w - 1) * g.stride + g.kw - ow, 0) / 2 : 0;
  const float unit = g.act == DType::Int16 ? 1.0f / 256.0f : 1.0f; // keeps int16 outputs unclipped
  const QParams in{{0.02f * unit}, {g.act == DType::UInt8 ? 100 : (g.act == DType::Int8 ? 9 : 0)}};
  const bool is_signed = g.wtype == DType::Int8;
  QParams wq{{0.006f}, {is_signed ? 0 : 128}};
  if (g.per_channel) {
    wq = {{}, {}, 0};
    for (int64_t o = 0; o < g.oc; ++o) {
      wq.scale.push_back(0.004f + 0.003f * static_cast<float>(o % 4));
      wq.zero_point.push_back(is_signed ? 0 : 120 + o % 5);
    }
  }
  const QParams out{{0.05f * unit}, {g.act == DType::UInt8 ? 128 : (g.act == DType::Int8 ? -3 : 0)}};
  const auto x_codes = randomCodes(static_cast<std::size_t>(g.n * g.h * g.w * g.c), lowest(g.act), highest(g.act), 41);
  const auto w_codes =
      randomCodes(static_cast<std::size_t>(g.oc * g.kh * g.kw * g.c), lowest(g.wtype), highest(g.wtype), 42);
  const auto b_codes = randomCodes(static_cast<std::size_t>(g.oc), -500, 500, 43);
  QParams bq{{}, {}, 0};
  for (int64_t o = 0; o < g.oc; ++o) {
    bq.scale.push_back(static_cast<float>(in.s() * wq.s(g.per_channel ? static_cast<std::size_t>(o) : 0)));
    bq.zero_point.push_back(0);
  }

  ModelBuilder b;
  const auto i32dim = [](int64_t v) { return static_cast<int32_t>(v); };
  const int32_t shape = b.constant("output_shape", i32({4}, {i32dim(g.n), i32dim(oh), i32dim(ow), i32dim(g.oc)}));
  const int32_t x = qinput(b, "x", g.act, {i32dim(g.n), i32dim(g.h), i32dim(g.w), i32dim(g.c)}, in);
  const int32_t w = qconst(b, "w", g.wtype, {g.oc, g.kh, g.kw, g.c}, w_codes, wq);
  const int32_t bias =
      g.bias ? qconst(b, "bias", g.act == DType::Int16 ? DType::Int64 : DType::Int32, {g.oc}, b_codes, bq) : -1;
  const int32_t y = qtensor(b, "y", g.act, {i32dim(g.n), i32dim(oh), i32dim(ow), i32dim(g.oc)}, out);
  circle::TransposeConvOptionsT o;
  o.padding = g.padding;
  o.stride_h = o.stride_w = static_cast<int32_t>(g.stride);
  o.fused_activation_function = g.activation;
  b.op(B::TRANSPOSE_CONV, {shape, w, x, bias}, {y}, ModelBuilder::options(o));
  b.output(y);
  const auto got = codesOf(*runModel(b.build(), {codes(g.act, {g.n, g.h, g.w, g.c}, x_codes)})[0]);

  std::vector<double> sum(static_cast<std::size_t>(g.n * oh * ow * g.oc), 0.0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t iy = 0; iy < g.h; ++iy)
      for (int64_t ix = 0; ix < g.w; ++ix)
        for (int64_t ky = 0; ky < g.kh; ++ky)
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const int64_t y0 = iy * g.stride + ky - pad_y, x0 = ix * g.stride + kx - pad_x;
            if (y0 < 0 || y0 >= oh || x0 < 0 || x0 >= ow)
              continue;
            for (int64_t oc = 0; oc < g.oc; ++oc)
              for (int64_t ic = 0; ic < g.c; ++ic)
                sum[static_cast<std::size_t>(((n * oh + y0) * ow + x0) * g.oc + oc)] +=
                    real(x_codes[static_cast<std::size_t>(((n * g.h + iy) * g.w + ix) * g.c + ic)], in) *
                    real(w_codes[static_cast<std::size_t>(((oc * g.kh + ky) * g.kw + kx) * g.c + ic)], wq,
                         g.per_channel ? static_cast<std::size_t>(oc) : 0);
          }
  const double relu_lo = g.activation == circle::ActivationFunctionType::RELU ? static_cast<double>(out.zp()) : -INFINITY;
  std::vector<double> ideal;
  for (std::size_t i = 0; i < sum.size(); ++i) {
    const auto oc = i % static_cast<std::size_t>(g.oc);
    const double b_real = g.bias ? static_cast<double>(b_codes[oc]) * bq.s(oc) : 0.0;
    ideal.push_back(idealCode(sum[i] + b_real, out, g.act, relu_lo));
  }
  EXPECT_LE(maxStepError(got, ideal, g.label), 1.0);
}

TEST(InterpQuantTransposeConv, MatchesRealArithmeticWithinOneStep) {
  using A = circle::ActivationFunctionType;
  const TransposeConvCase cases[] = {
      {1, 4, 5, 3, 4, 3, 3, 2, circle::Padding::SAME, DType::UInt8, DType::UInt8, true, true, A::NONE,
       "TRANSPOSE_CONV u8 x u8 per-channel SAME s2"},
      {2, 3, 3, 4, 2, 2, 2, 2, circle::Padding::VALID, DType::Int8, DType::Int8, false, true, A::RELU,
       "TRANSPOSE_CONV i8 x i8 per-tensor VALID s2 relu"},
      {1, 5, 4, 2, 3, 3, 3, 1, circle::Padding::SAME, DType::Int16, DType::Int8, true, true, A::NONE,
       "TRANSPOSE_CONV i16 x i8 per-channel SAME s1"},
      {1, 3, 4, 3, 5, 4, 3, 3, circle::Padding::VALID, DType::UInt8, DType::UInt8, true, false, A::NONE,
       "TRANSPOSE_CONV u8 x u8 per-channel VALID s3 no bias"},
  };
  for (const TransposeConvCase &c : cases)
    checkTransposeConv(c);
}

TEST(InterpQuantConv2D, SamePaddingContributesTheRealValueZero) {
  // 1x1 input code 10 with zero point 10 (real 0) and a 3x3 all-ones filter: every output is
  // exactly the output zero point, although the code 0 would have been far from real 0.
  ModelBuilder b;
  const int32_t x = qinput(b, "x", DType::UInt8, {1, 2, 2, 1}, {{1.0f}, {10}});
  const int32_t w = qconst(b, "w", DType::UInt8, {1, 3, 3, 1}, std::vector<int64_t>(9, 1), {{1.0f}, {0}});
  const int32_t y = qtensor(b, "y", DType::UInt8, {1, 2, 2, 1}, {{1.0f}, {50}});
  circle::Conv2DOptionsT o;
  o.padding = circle::Padding::SAME;
  o.stride_h = o.stride_w = 1;
  b.op(B::CONV_2D, {x, w, -1}, {y}, ModelBuilder::options(o));
  b.output(y);
  EXPECT_EQ(codesOf(*runModel(b.build(), {codes(DType::UInt8, {1, 2, 2, 1}, {10, 10, 10, 12})})[0]),
            (std::vector<int64_t>{52, 52, 52, 52})); // the one non-zero input (real 2) reaches every window
}

TEST(InterpQuantBatchMatMul, MatchesRealArithmeticWithinOneStep) {
  for (DType act : {DType::Int8, DType::Int16, DType::UInt8}) {
    for (bool adjoint : {false, true}) {
      const int64_t batch = 2, M = 3, K = 5, N = 4;
      const float unit = act == DType::Int16 ? 1.0f / 256.0f : 1.0f; // int16 outputs unclipped
      const QParams lq{{0.05f * unit}, {act == DType::UInt8 ? 128 : 0}};
      const QParams rq{{0.04f * unit}, {act == DType::UInt8 ? 120 : 0}};
      const QParams oq{{0.3f * unit}, {act == DType::UInt8 ? 130 : 0}};
      const auto l = randomCodes(static_cast<std::size_t>(batch * M * K), lowest(act), highest(act), 31);
      const auto r = randomCodes(static_cast<std::size_t>(K * N), lowest(act), highest(act), 32);
      ModelBuilder b;
      const int32_t lt = qinput(b, "l", act, {static_cast<int32_t>(batch), static_cast<int32_t>(M), static_cast<int32_t>(K)}, lq);
      // rhs broadcast over the batch: [1, K, N], or [1, N, K] with adjoint_rhs.
      const std::vector<int64_t> r_shape = adjoint ? std::vector<int64_t>{1, N, K} : std::vector<int64_t>{1, K, N};
      const int32_t rt = qconst(b, "r", act, r_shape, r, rq);
      const int32_t yt = qtensor(b, "y", act, {static_cast<int32_t>(batch), static_cast<int32_t>(M), static_cast<int32_t>(N)}, oq);
      circle::BatchMatMulOptionsT o;
      o.adjoint_rhs = adjoint;
      b.op(B::BATCH_MATMUL, {lt, rt}, {yt}, ModelBuilder::options(o));
      b.output(yt);
      const auto model = b.build();
      const auto feed = codes(act, {batch, M, K}, l);
      const auto got = codesOf(*runModel(model, {feed})[0]);
      ::setenv("TICO_INTEGER_GEMM", "loops", 1); // 8-bit operands: the library's codes are the loops'
      EXPECT_EQ(got, codesOf(*runModel(model, {feed})[0])) << dtypeName(act) << (adjoint ? " adjoint rhs" : "");
      ::unsetenv("TICO_INTEGER_GEMM");
      std::vector<double> ideal;
      for (int64_t bt = 0; bt < batch; ++bt)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double sum = 0;
            for (int64_t k = 0; k < K; ++k)
              sum += real(l[static_cast<std::size_t>((bt * M + m) * K + k)], lq) *
                     real(r[static_cast<std::size_t>(adjoint ? n * K + k : k * N + n)], rq);
            ideal.push_back(idealCode(sum, oq, act));
          }
      EXPECT_LE(maxStepError(got, ideal, "BATCH_MATMUL " + std::string(dtypeName(act)) + (adjoint ? " adjoint rhs" : "")), 1.0);
    }
  }
}

} // namespace
} // namespace tico
