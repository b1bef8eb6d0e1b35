// Interpreter: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, pooling and resizing. Small cases
// by hand; random ones against direct (no im2col, no matrix kernel) reference loops written
// here with hand-computed output sizes and paddings; resize values from PyTorch.
#include "interp_test_support.h"

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

struct ConvCase {
  int64_t n, h, w, c, o, kh, kw, cin_per_group; // filter [o, kh, kw, cin_per_group]
  int64_t sh, sw, dh, dw;
  int64_t oh, ow, pad_top, pad_left; // expected geometry, computed by hand
};

// Direct NHWC convolution with zero padding, groups = c / cin_per_group, in double.
std::vector<float> referenceConv(const ConvCase &k, const std::vector<float> &in, const std::vector<float> &filter,
                                 const std::vector<float> &bias) {
  const int64_t groups = k.c / k.cin_per_group, per_group_out = k.o / groups;
  std::vector<float> out;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t y = 0; y < k.oh; ++y)
      for (int64_t x = 0; x < k.ow; ++x)
        for (int64_t o = 0; o < k.o; ++o) {
          const int64_t g = o / per_group_out;
          double sum = bias.empty() ? 0.0 : bias[static_cast<std::size_t>(o)];
          for (int64_t ky = 0; ky < k.kh; ++ky)
            for (int64_t kx = 0; kx < k.kw; ++kx)
              for (int64_t ci = 0; ci < k.cin_per_group; ++ci) {
                const int64_t iy = y * k.sh + ky * k.dh - k.pad_top, ix = x * k.sw + kx * k.dw - k.pad_left;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w)
                  continue;
                sum += static_cast<double>(in[static_cast<std::size_t>(((n * k.h + iy) * k.w + ix) * k.c + g * k.cin_per_group + ci)]) *
                       filter[static_cast<std::size_t>(((o * k.kh + ky) * k.kw + kx) * k.cin_per_group + ci)];
              }
          out.push_back(static_cast<float>(sum));
        }
  return out;
}

circle::BuiltinOptionsUnion convOptions(circle::Padding padding, int sh, int sw, int dh = 1, int dw = 1,
                                        circle::ActivationFunctionType act = circle::ActivationFunctionType::NONE) {
  circle::Conv2DOptionsT o;
  o.padding = padding;
  o.stride_h = sh;
  o.stride_w = sw;
  o.dilation_h_factor = dh;
  o.dilation_w_factor = dw;
  o.fused_activation_function = act;
  return ModelBuilder::options(o);
}

TEST(InterpConv2D, ValidByHand) {
  // 3x3 image 1..9, 2x2 filter picking the diagonal (1,0,0,1), bias 1.
  auto in = f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto filter = f32({1, 2, 2, 1}, {1, 0, 0, 1});
  auto bias = f32({1}, {1});
  auto out = runSingle({B::CONV_2D, convOptions(circle::Padding::VALID, 1, 1), {in, filter, bias}}).at(0);
  expectShape(*out, {1, 2, 2, 1});
  expectFloats(*out, {7, 9, 13, 15});
}

void checkConv(const ConvCase &k, circle::Padding padding, uint32_t seed, bool with_bias = true) {
  const auto in = randomFloats(static_cast<std::size_t>(k.n * k.h * k.w * k.c), seed);
  const auto filter = randomFloats(static_cast<std::size_t>(k.o * k.kh * k.kw * k.cin_per_group), seed + 1);
  const auto bias = with_bias ? randomFloats(static_cast<std::size_t>(k.o), seed + 2) : std::vector<float>{};
  auto out = runSingle({B::CONV_2D,
                        convOptions(padding, static_cast<int>(k.sh), static_cast<int>(k.sw), static_cast<int>(k.dh),
                                    static_cast<int>(k.dw)),
                        {f32({k.n, k.h, k.w, k.c}, in), f32({k.o, k.kh, k.kw, k.cin_per_group}, filter),
                         with_bias ? f32({k.o}, bias) : nullptr}})
                 .at(0);
  expectShape(*out, {k.n, k.oh, k.ow, k.o});
  expectFloats(*out, referenceConv(k, in, filter, bias), 1e-5f);
}

TEST(InterpConv2D, SameWithStrideTwo) {
  // H 7, k 3, s 2: out ceil(7/2) = 4, pad (4-1)*2+3-7 = 2 -> top 1; W 6: out 3, pad 1 -> left 0.
  checkConv({2, 7, 6, 3, 4, 3, 3, 3, 2, 2, 1, 1, 4, 3, 1, 0}, circle::Padding::SAME, 10);
}

TEST(InterpConv2D, ValidWithDilation) {
  // 8x8, k 3, dilation 2: effective 5 -> out 4.
  checkConv({1, 8, 8, 2, 5, 3, 3, 2, 1, 1, 2, 2, 4, 4, 0, 0}, circle::Padding::VALID, 20);
}

TEST(InterpConv2D, SameStrideOneWithoutBias) {
  // 5x5, k 3, s 1: out 5, pad 2 -> 1 before.
  checkConv({1, 5, 5, 4, 3, 3, 3, 4, 1, 1, 1, 1, 5, 5, 1, 1}, circle::Padding::SAME, 25, false);
}

TEST(InterpConv2D, GroupedConvolution) {
  // C 4 with a filter of 2 input channels: 2 groups of 3 outputs each.
  checkConv({1, 5, 4, 4, 6, 2, 2, 2, 1, 1, 1, 1, 4, 3, 0, 0}, circle::Padding::VALID, 30);
}

TEST(InterpConv2D, PointwiseUsesTheInputAsTheMatrix) {
  checkConv({2, 6, 5, 16, 70, 1, 1, 16, 1, 1, 1, 1, 6, 5, 0, 0}, circle::Padding::VALID, 40);
}

TEST(InterpConv2D, LargerImageCrossesTheThreadingThreshold) {
  // 32x32x16 -> 32x32x32 with a 3x3 SAME filter.
  checkConv({1, 32, 32, 16, 32, 3, 3, 16, 1, 1, 1, 1, 32, 32, 1, 1}, circle::Padding::SAME, 50);
}

TEST(InterpConv2D, FusedActivationAndShapeErrors) {
  auto in = f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto filter = f32({1, 2, 2, 1}, {-1, 0, 0, -1});
  auto out = runSingle({B::CONV_2D, convOptions(circle::Padding::VALID, 1, 1, 1, 1, circle::ActivationFunctionType::RELU),
                        {in, filter, nullptr}})
                 .at(0);
  expectFloats(*out, {0, 0, 0, 0});
  auto wrong = f32({1, 2, 2, 3}, std::vector<float>(12, 1));
  const std::string message =
      errorOf([&] { runSingle({B::CONV_2D, convOptions(circle::Padding::VALID, 1, 1), {in, wrong, nullptr}}); });
  EXPECT_TRUE(contains(message, "operator #0 (CONV_2D)")) << message;
  EXPECT_TRUE(contains(message, "3 input channels")) << message;
}

circle::BuiltinOptionsUnion depthwiseOptions(circle::Padding padding, int s, int multiplier, int d = 1) {
  circle::DepthwiseConv2DOptionsT o;
  o.padding = padding;
  o.stride_h = o.stride_w = s;
  o.depth_multiplier = multiplier;
  o.dilation_h_factor = o.dilation_w_factor = d;
  return ModelBuilder::options(o);
}

std::vector<float> referenceDepthwise(const std::vector<float> &in, const std::vector<float> &filter,
                                      const std::vector<float> &bias, int64_t N, int64_t H, int64_t W, int64_t C,
                                      int64_t mult, int64_t K, int64_t s, int64_t d, int64_t OH, int64_t OW,
                                      int64_t pad) {
  std::vector<float> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t y = 0; y < OH; ++y)
      for (int64_t x = 0; x < OW; ++x)
        for (int64_t oc = 0; oc < C * mult; ++oc) {
          double sum = bias[static_cast<std::size_t>(oc)];
          for (int64_t ky = 0; ky < K; ++ky)
            for (int64_t kx = 0; kx < K; ++kx) {
              const int64_t iy = y * s + ky * d - pad, ix = x * s + kx * d - pad;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                sum += static_cast<double>(in[static_cast<std::size_t>(((n * H + iy) * W + ix) * C + oc / mult)]) *
                       filter[static_cast<std::size_t>((ky * K + kx) * C * mult + oc)];
            }
          out.push_back(static_cast<float>(sum));
        }
  return out;
}

TEST(InterpDepthwiseConv2D, MultiplierOneAndTwo) {
  // 6x6, k 3, SAME stride 2: out 3, pad (3-1)*2+3-6 = 1 -> top 0.
  for (int64_t mult : {1, 2}) {
    const int64_t C = 5;
    const auto in = randomFloats(2 * 6 * 6 * C, 60);
    const auto filter = randomFloats(static_cast<std::size_t>(9 * C * mult), 61);
    const auto bias = randomFloats(static_cast<std::size_t>(C * mult), 62);
    auto out = runSingle({B::DEPTHWISE_CONV_2D, depthwiseOptions(circle::Padding::SAME, 2, static_cast<int>(mult)),
                          {f32({2, 6, 6, C}, in), f32({1, 3, 3, C * mult}, filter), f32({C * mult}, bias)}})
                   .at(0);
    expectShape(*out, {2, 3, 3, C * mult});
    expectFloats(*out, referenceDepthwise(in, filter, bias, 2, 6, 6, C, mult, 3, 2, 1, 3, 3, 0), 1e-5f);
  }
}

TEST(InterpDepthwiseConv2D, DilatedSameKeepsTheSize) {
  // 7x7, k 3, dilation 2, stride 1, SAME: out 7, pad (7-1)+5-7 = 4 -> 2 before.
  const int64_t C = 3;
  const auto in = randomFloats(7 * 7 * C, 70);
  const auto filter = randomFloats(9 * C, 71);
  const auto bias = randomFloats(C, 72);
  auto out = runSingle({B::DEPTHWISE_CONV_2D, depthwiseOptions(circle::Padding::SAME, 1, 1, 2),
                        {f32({1, 7, 7, C}, in), f32({1, 3, 3, C}, filter), f32({C}, bias)}})
                 .at(0);
  expectFloats(*out, referenceDepthwise(in, filter, bias, 1, 7, 7, C, 1, 3, 1, 2, 7, 7, 2), 1e-5f);
}

TEST(InterpTransposeConv, SameStrideTwoScattersEveryTap) {
  // input 3x3, k 3, stride 2, output 6x6: SAME pad (3-1)*2+3-6 = 1 -> 0 before.
  const int64_t N = 1, H = 3, W = 3, I = 2, O = 3, K = 3, S = 2, OH = 6, OW = 6, pad = 0;
  const auto in = randomFloats(N * H * W * I, 80);
  const auto filter = randomFloats(O * K * K * I, 81);
  const auto bias = randomFloats(O, 82);
  circle::TransposeConvOptionsT options;
  options.padding = circle::Padding::SAME;
  options.stride_h = options.stride_w = S;
  auto out = runSingle({B::TRANSPOSE_CONV, ModelBuilder::options(options),
                        {i32({4}, {1, 6, 6, 3}), f32({O, K, K, I}, filter), f32({N, H, W, I}, in), f32({O}, bias)}})
                 .at(0);
  expectShape(*out, {1, 6, 6, 3});
  std::vector<double> expected(static_cast<std::size_t>(OH * OW * O));
  for (int64_t p = 0; p < OH * OW; ++p)
    for (int64_t o = 0; o < O; ++o)
      expected[static_cast<std::size_t>(p * O + o)] = bias[static_cast<std::size_t>(o)];
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x)
      for (int64_t ky = 0; ky < K; ++ky)
        for (int64_t kx = 0; kx < K; ++kx) {
          const int64_t oy = y * S + ky - pad, ox = x * S + kx - pad;
          if (oy < 0 || oy >= OH || ox < 0 || ox >= OW)
            continue;
          for (int64_t o = 0; o < O; ++o)
            for (int64_t i = 0; i < I; ++i)
              expected[static_cast<std::size_t>((oy * OW + ox) * O + o)] +=
                  static_cast<double>(in[static_cast<std::size_t>((y * W + x) * I + i)]) *
                  filter[static_cast<std::size_t>(((o * K + ky) * K + kx) * I + i)];
        }
  expectFloats(*out, std::vector<float>(expected.begin(), expected.end()), 1e-5f);
}

TEST(InterpTransposeConv, ValidByHand) {
  // 2x2 input [1,2,3,4], 2x2 filter of ones, stride 2 -> each input pixel fills a 2x2 block.
  circle::TransposeConvOptionsT options;
  options.padding = circle::Padding::VALID;
  options.stride_h = options.stride_w = 2;
  auto out = runSingle({B::TRANSPOSE_CONV, ModelBuilder::options(options),
                        {i32({4}, {1, 4, 4, 1}), f32({1, 2, 2, 1}, {1, 1, 1, 1}), f32({1, 2, 2, 1}, {1, 2, 3, 4}),
                         nullptr}})
                 .at(0);
  expectFloats(*out, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

circle::BuiltinOptionsUnion poolOptions(circle::Padding padding, int filter, int stride) {
  circle::Pool2DOptionsT o;
  o.padding = padding;
  o.filter_height = o.filter_width = filter;
  o.stride_h = o.stride_w = stride;
  return ModelBuilder::options(o);
}

TEST(InterpPool2D, SameWindowsIgnorePadding) {
  // 3x3 image 1..9, 2x2 windows, stride 2, SAME: out 2x2, windows {1,2,4,5} {3,6} {7,8} {9}.
  auto in = f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto max = runSingle({B::MAX_POOL_2D, poolOptions(circle::Padding::SAME, 2, 2), {in}}).at(0);
  expectShape(*max, {1, 2, 2, 1});
  expectFloats(*max, {5, 6, 8, 9});
  auto avg = runSingle({B::AVERAGE_POOL_2D, poolOptions(circle::Padding::SAME, 2, 2), {in}}).at(0);
  expectFloats(*avg, {3, 4.5f, 7.5f, 9});
}

TEST(InterpPool2D, ValidMultiChannelAndNegativeValues) {
  // 2 channels: channel 0 = -(1..16), channel 1 = 1..16 on a 4x4 grid; 2x2 windows, stride 2.
  std::vector<float> values;
  for (int i = 1; i <= 16; ++i) {
    values.push_back(static_cast<float>(-i));
    values.push_back(static_cast<float>(i));
  }
  auto in = f32({1, 4, 4, 2}, values);
  expectFloats(*runSingle({B::MAX_POOL_2D, poolOptions(circle::Padding::VALID, 2, 2), {in}}).at(0),
               {-1, 6, -3, 8, -9, 14, -11, 16});
  expectFloats(*runSingle({B::AVERAGE_POOL_2D, poolOptions(circle::Padding::VALID, 2, 2), {in}}).at(0),
               {-3.5f, 3.5f, -5.5f, 5.5f, -11.5f, 11.5f, -13.5f, 13.5f});
}

TEST(InterpResize, BilinearMatchesPyTorch) {
  // x = torch.arange(1, 13.).reshape(1, 1, 3, 4), resized to (5, 6); NHWC with one channel.
  std::vector<float> image;
  for (int i = 1; i <= 12; ++i)
    image.push_back(static_cast<float>(i));
  auto in = f32({1, 3, 4, 1}, image);
  circle::ResizeBilinearOptionsT half_pixel;
  half_pixel.half_pixel_centers = true;
  // F.interpolate(x, size=(5, 6), mode='bilinear', align_corners=False)
  expectFloats(*runSingle({B::RESIZE_BILINEAR, ModelBuilder::options(half_pixel), {in, i32({2}, {5, 6})}}).at(0),
               {1.0f, 1.5f, 2.1666667f, 2.8333333f, 3.5f, 4.0f, 2.6f, 3.1f, 3.7666669f, 4.4333334f,
                5.1f, 5.6f, 5.0f, 5.5f, 6.1666670f, 6.8333330f, 7.5f, 8.0f, 7.4f, 7.9f,
                8.5666676f, 9.2333336f, 9.9f, 10.4f, 9.0f, 9.5f, 10.1666670f, 10.8333330f, 11.5f, 12.0f});
  circle::ResizeBilinearOptionsT corners;
  corners.align_corners = true;
  // F.interpolate(x, size=(5, 6), mode='bilinear', align_corners=True)
  expectFloats(*runSingle({B::RESIZE_BILINEAR, ModelBuilder::options(corners), {in, i32({2}, {5, 6})}}).at(0),
               {1.0f, 1.6f, 2.2f, 2.8f, 3.4f, 4.0f, 3.0f, 3.6f, 4.2f, 4.8f, 5.4f, 6.0f, 5.0f, 5.6f, 6.2f,
                6.8f, 7.4f, 8.0f, 7.0f, 7.6f, 8.2f, 8.8f, 9.4f, 10.0f, 9.0f, 9.6f, 10.2f, 10.8f, 11.4f, 12.0f});
}

TEST(InterpResize, NearestMatchesPyTorch) {
  std::vector<int32_t> image;
  for (int i = 1; i <= 12; ++i)
    image.push_back(i);
  auto in = i32({1, 3, 4, 1}, image);
  // F.interpolate(x, size=(5, 6), mode='nearest') and size=(2, 3)
  expectValues<int32_t>(*runSingle({B::RESIZE_NEAREST_NEIGHBOR, {}, {in, i32({2}, {5, 6})}, DType::Int32}).at(0),
                        DType::Int32, {1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8,
                                       5, 5, 6, 7, 7, 8, 9, 9, 10, 11, 11, 12});
  expectValues<int32_t>(*runSingle({B::RESIZE_NEAREST_NEIGHBOR, {}, {in, i32({2}, {2, 3})}, DType::Int32}).at(0),
                        DType::Int32, {1, 2, 3, 5, 6, 7});
}

} // namespace
} // namespace tico
