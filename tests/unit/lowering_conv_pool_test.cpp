// Convolution and pooling lowerings: layout sandwich, weight layout, padding choices.
#include "lowering_test_support.h"

#include <map>

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

std::vector<std::string> sandwich(const std::string &op) { return {"TRANSPOSE", op, "TRANSPOSE"}; }

// OIHW value o*18 + i*9 + h*3 + w (test::iota over [3, 2, 3, 3]) read back in OHWI order.
std::vector<float> ohwiOfIota() {
  std::vector<float> out;
  for (int o = 0; o < 3; ++o)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 3; ++w)
        for (int i = 0; i < 2; ++i)
          out.push_back(static_cast<float>(o * 18 + i * 9 + h * 3 + w));
  return out;
}

std::string convGraph(const std::string &input, const std::string &output, const std::string &call) {
  return "graph @main {\n  input %x: f32" + input + "\n  param %w: f32[3, 2, 3, 3] \"conv.weight\" = " +
         test::iota(54) + "\n  param %b: f32[3] \"conv.bias\" = dense<[1.0, 2.0, 3.0]>\n  %y: f32" + output +
         " = " + call + "\n  return %y\n}\n";
}

TEST(LowerConv2d, IsATransposeSandwichWithOhwiWeightsViewedInPlace) {
  auto g = parse(convGraph("[1, 2, 5, 5]", "[1, 3, 5, 5]", "aten::conv2d.default(%x, %w, %b, padding=[1, 1])"));
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), sandwich("CONV_2D"));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{0, 2, 3, 1}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[2].inputs[1]), (std::vector<int32_t>{0, 3, 1, 2}));

  const CircleOperator &conv = ops[1];
  const auto *options = conv.builtin_options.AsConv2DOptions();
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(options->padding, circle::Padding::SAME);
  EXPECT_EQ(options->stride_h, 1);
  EXPECT_EQ(options->stride_w, 1);
  EXPECT_EQ(options->dilation_h_factor, 1);
  EXPECT_EQ(tensorAt(m, conv.inputs[0]).shape, (std::vector<int32_t>{1, 5, 5, 2}));
  EXPECT_EQ(tensorAt(m, conv.outputs[0]).shape, (std::vector<int32_t>{1, 5, 5, 3}));

  const CircleTensor &weight = tensorAt(m, conv.inputs[1]);
  EXPECT_EQ(weight.shape, (std::vector<int32_t>{3, 3, 3, 2}));
  EXPECT_EQ(constantValues<float>(m, conv.inputs[1]), ohwiOfIota());
  EXPECT_EQ(m.buffers[weight.buffer].data->storage, g->findValue("w")->constant()->storage)
      << "the OHWI weight must be a view of the parameter's storage";
  EXPECT_EQ(constantValues<float>(m, conv.inputs[2]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).shape, (std::vector<int32_t>{1, 3, 5, 5}));
}

TEST(LowerConv2d, GetsAZeroBiasWhenPyTorchHasNone) {
  auto g = parse(convGraph("[1, 2, 5, 5]", "[1, 3, 3, 3]", "aten::conv2d.default(%x, %w)"));
  CircleModel m = lower(*g);
  const CircleOperator &conv = firstOp(m, "CONV_2D");
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(constantValues<float>(m, conv.inputs[2]), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(conv.builtin_options.AsConv2DOptions()->padding, circle::Padding::VALID);
}

TEST(LowerConv2d, UsesSameOnlyWhenItReproducesPyTorchWindows) {
  // 7 -> 4 with stride 2 and pad 1: TFLite's SAME pads 1 before, as PyTorch does.
  auto odd = parse(convGraph("[1, 2, 7, 7]", "[1, 3, 4, 4]",
                             "aten::conv2d.default(%x, %w, %b, [2, 2], [1, 1])"));
  CircleModel m = lower(*odd);
  EXPECT_EQ(opNames(m), sandwich("CONV_2D"));
  EXPECT_EQ(firstOp(m, "CONV_2D").builtin_options.AsConv2DOptions()->padding, circle::Padding::SAME);
  EXPECT_EQ(firstOp(m, "CONV_2D").builtin_options.AsConv2DOptions()->stride_h, 2);

  // 8 -> 4: SAME would pad 0 before and 1 after; PyTorch pads 1 before, so an explicit PAD.
  auto even = parse(convGraph("[1, 2, 8, 8]", "[1, 3, 4, 4]",
                              "aten::conv2d.default(%x, %w, %b, [2, 2], [1, 1])"));
  CircleModel e = lower(*even);
  EXPECT_EQ(opNames(e), (std::vector<std::string>{"TRANSPOSE", "PAD", "CONV_2D", "TRANSPOSE"}));
  EXPECT_EQ(constantValues<int32_t>(e, firstOp(e, "PAD").inputs[1]), (std::vector<int32_t>{0, 0, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(firstOp(e, "CONV_2D").builtin_options.AsConv2DOptions()->padding, circle::Padding::VALID);
}

TEST(LowerConv2d, AsymmetricPaddingPadsEachAxisExplicitly) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 1, 4, 4]
  param %w: f32[1, 1, 3, 1] "w" = dense<[1.0, 2.0, 3.0]>
  %y: f32[1, 1, 6, 4] = aten::conv2d.default(%x, %w, None, [1, 1], [2, 0])
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(constantValues<int32_t>(m, firstOp(m, "PAD").inputs[1]), (std::vector<int32_t>{0, 0, 2, 2, 0, 0, 0, 0}));
  EXPECT_EQ(tensorAt(m, firstOp(m, "PAD").outputs[0]).shape, (std::vector<int32_t>{1, 8, 4, 1}));
}

TEST(LowerConv2d, StringPaddingAndDilation) {
  auto g = parse(convGraph("[1, 2, 9, 9]", "[1, 3, 9, 9]",
                           "aten::conv2d.padding(%x, %w, %b, padding=\"same\", dilation=[2, 2])"));
  CircleModel m = lower(*g);
  const auto *options = firstOp(m, "CONV_2D").builtin_options.AsConv2DOptions();
  EXPECT_EQ(options->padding, circle::Padding::SAME);
  EXPECT_EQ(options->dilation_h_factor, 2);
  EXPECT_EQ(options->dilation_w_factor, 2);
}

TEST(LowerConv2d, DecomposedConvolutionOverload) {
  auto g = parse(convGraph("[1, 2, 5, 5]", "[1, 3, 3, 3]",
                           "aten::convolution.default(%x, %w, %b, [1, 1], [0, 0], [1, 1], false, [0, 0], 1)"));
  EXPECT_EQ(opNames(lower(*g)), sandwich("CONV_2D"));
}

TEST(LowerConv2d, DepthwiseWithMultiplier) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 4, 4]
  param %w: f32[4, 1, 2, 2] "dw.weight" = )" + test::iota(16) + R"(
  %y: f32[1, 4, 3, 3] = aten::conv2d.default(%x, %w, None, [1, 1], [0, 0], [1, 1], 2)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), sandwich("DEPTHWISE_CONV_2D"));
  const CircleOperator &conv = firstOp(m, "DEPTHWISE_CONV_2D");
  EXPECT_EQ(conv.builtin_options.AsDepthwiseConv2DOptions()->depth_multiplier, 2);
  EXPECT_EQ(tensorAt(m, conv.inputs[1]).shape, (std::vector<int32_t>{1, 2, 2, 4}));
  // [O, 1, H, W] -> [1, H, W, O]: element (h, w, o) is o*4 + h*2 + w.
  std::vector<float> expected;
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 2; ++w)
      for (int o = 0; o < 4; ++o)
        expected.push_back(static_cast<float>(o * 4 + h * 2 + w));
  EXPECT_EQ(constantValues<float>(m, conv.inputs[1]), expected);
}

TEST(LowerConv2d, ComputedWeightsAreTransposedAtRuntime) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 4, 4]
  input %w: f32[3, 2, 1, 1]
  %y: f32[1, 3, 4, 4] = aten::conv2d.default(%x, %w)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "TRANSPOSE", "CONV_2D", "TRANSPOSE"}));
}

TEST(LowerConv2d, ReportsWhatItDoesNotCover) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 4, 4, 4]
  param %w: f32[4, 2, 1, 1] "w" = )" + test::iota(8) + R"(
  param %t: f32[4, 2, 1, 1] "t" = )" + test::iota(8) + R"(
  param %u: f32[2, 2, 3] "u" = )" + test::iota(12) + R"(
  %g: f32[1, 4, 4, 4] = aten::conv2d.default(%x, %w, None, [1, 1], [0, 0], [1, 1], 2)
  %c: f32[1, 4, 4, 4] = aten::convolution.default(%x, %t, None, [1, 1], [0, 0], [1, 1], true, [0, 0], 2)
  %l: f32[1, 2, 32] = aten::reshape.default(%x, [1, 2, 32])
  %k: f32[1, 2, 30] = aten::conv1d.default(%l, %u, None, [1], [0], [1], 1)
  return %g, %c, %k
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 3u);
  std::map<std::string, std::string> reasons;
  for (const auto &m : missing)
    reasons[m.op.str()] = m.reason;
  EXPECT_NE(reasons["aten::conv2d.default"].find("groups=2"), std::string::npos) << reasons["aten::conv2d.default"];
  EXPECT_NE(reasons["aten::convolution.default"].find("TRANSPOSE_CONV has no groups"), std::string::npos)
      << reasons["aten::convolution.default"];
  EXPECT_NE(reasons["aten::conv1d.default"].find("convert-conv1d-to-conv2d"), std::string::npos)
      << reasons["aten::conv1d.default"];
}

TEST(LowerMaxPool2d, PadsWithMinusInfinityWhenSameDoesNotMatch) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 6, 6]
  %y: f32[1, 2, 3, 3] = aten::max_pool2d.default(%x, [3, 3], [2, 2], [1, 1])
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "PADV2", "MAX_POOL_2D", "TRANSPOSE"}));
  const CircleOperator &pad = firstOp(m, "PADV2");
  auto value = constantValues<float>(m, pad.inputs[2]);
  ASSERT_EQ(value.size(), 1u);
  EXPECT_TRUE(std::isinf(value[0]) && value[0] < 0);
  const auto *pool = firstOp(m, "MAX_POOL_2D").builtin_options.AsPool2DOptions();
  EXPECT_EQ(pool->padding, circle::Padding::VALID);
  EXPECT_EQ(pool->filter_height, 3);
  EXPECT_EQ(pool->stride_w, 2);
}

TEST(LowerMaxPool2d, EmptyStrideMeansKernelAndUnusedIndicesAreFine) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 4, 4]
  %y: f32[1, 2, 2, 2], %i: i64[1, 2, 2, 2] = aten::max_pool2d_with_indices.default(%x, [2, 2])
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), sandwich("MAX_POOL_2D"));
  const auto *pool = firstOp(m, "MAX_POOL_2D").builtin_options.AsPool2DOptions();
  EXPECT_EQ(pool->stride_h, 2);
  EXPECT_EQ(pool->padding, circle::Padding::VALID);
}

TEST(LowerMaxPool2d, UsedIndicesAreUnsupported) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 4, 4]
  %y: f32[1, 2, 2, 2], %i: i64[1, 2, 2, 2] = aten::max_pool2d_with_indices.default(%x, [2, 2])
  return %y, %i
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("indices"), std::string::npos);
}

TEST(LowerAvgPool2d, CountIncludePadPadsWithZerosThenValid) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 5, 5]
  %y: f32[1, 2, 5, 5] = aten::avg_pool2d.default(%x, [3, 3], [1, 1], [1, 1])
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "PAD", "AVERAGE_POOL_2D", "TRANSPOSE"}));
  EXPECT_EQ(firstOp(m, "AVERAGE_POOL_2D").builtin_options.AsPool2DOptions()->padding, circle::Padding::VALID);
}

TEST(LowerAvgPool2d, ExcludedPaddingIsSame) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 5, 5]
  %y: f32[1, 2, 5, 5] = aten::avg_pool2d.default(%x, [3, 3], [1, 1], [1, 1], false, false)
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), sandwich("AVERAGE_POOL_2D"));
  EXPECT_EQ(firstOp(m, "AVERAGE_POOL_2D").builtin_options.AsPool2DOptions()->padding, circle::Padding::SAME);
}

TEST(LowerAvgPool2d, ReportsUncoveredAttributes) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 6, 6]
  %a: f32[1, 2, 3, 3] = aten::avg_pool2d.default(%x, [3, 3], [2, 2], [1, 1], false, false)
  %b: f32[1, 2, 3, 3] = aten::avg_pool2d.default(%x, [2, 2], [2, 2], [0, 0], false, true, 3)
  %c: f32[1, 2, 3, 3] = aten::avg_pool2d.default(%x, [2, 2], [2, 2], [0, 0], true)
  %d: f32[1, 2, 3, 3] = aten::avg_pool2d.default(%x, [3, 3], [2, 2], [0, 0], true)
  return %a, %b, %c, %d
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].count, 3u) << "ceil_mode without a partial window (c) is fine";
  EXPECT_NE(missing[0].reason.find("count_include_pad=False"), std::string::npos) << missing[0].reason;
  EXPECT_NE(missing[0].reason.find("divisor_override"), std::string::npos) << missing[0].reason;
  EXPECT_NE(missing[0].reason.find("ceil_mode"), std::string::npos) << missing[0].reason;
}

TEST(LowerAdaptiveAvgPool2d, GlobalPoolingIsAMeanOverHeightAndWidth) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 5, 5]
  %y: f32[1, 2, 1, 1] = aten::adaptive_avg_pool2d.default(%x, [1, 1])
  return %y
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MEAN"}));
  EXPECT_EQ(constantValues<int32_t>(m, firstOp(m, "MEAN").inputs[1]), (std::vector<int32_t>{2, 3}));
  EXPECT_TRUE(firstOp(m, "MEAN").builtin_options.AsReducerOptions()->keep_dims);
}

TEST(LowerAdaptiveAvgPool2d, EvenDivisionIsAnAveragePool) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 4, 6]
  %y: f32[1, 2, 2, 2] = aten::adaptive_avg_pool2d.default(%x, [2, 2])
  return %y
})");
  CircleModel m = lower(*g);
  const auto *pool = firstOp(m, "AVERAGE_POOL_2D").builtin_options.AsPool2DOptions();
  EXPECT_EQ(pool->filter_height, 2);
  EXPECT_EQ(pool->filter_width, 3);
  EXPECT_EQ(pool->stride_w, 3);
}

} // namespace
} // namespace tico
