// circle:: ops lower 1:1 (plus the PAD / SLICE / RESHAPE their attributes need), and the ATen
// forms of the same Circle operators: transposed convolution, resizing, instance_norm,
// rms_norm, rope, attention, shape.
#include "legalize_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::opNames;
using test::parseWithPlugins;
using test::tensorAt;

CircleModel lowerText(const std::string &text) { return test::lowerWithPlugins(*parseWithPlugins(text)); }

TEST(LowerCircleConv, NhwcConvolutionsNeedNoTranspose) {
  CircleModel m = lowerText(R"(graph @main {
  input %x: f32[1, 5, 5, 2]
  param %w: f32[3, 3, 3, 2] "w" = )" + test::iota(54) + R"(
  param %d: f32[1, 3, 3, 4] "d" = )" + test::iota(36) + R"(
  %y: f32[1, 5, 5, 3] = circle::conv2d.default(%x, %w, None, [1, 1], [1, 1])
  %z: f32[1, 3, 3, 4] = circle::depthwise_conv2d.default(%x, %d)
  return %y, %z
})");
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CONV_2D", "DEPTHWISE_CONV_2D"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].builtin_options.AsConv2DOptions()->padding, circle::Padding::SAME);
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[2]), (std::vector<float>{0, 0, 0})) << "zero bias";
  EXPECT_EQ(ops[1].builtin_options.AsDepthwiseConv2DOptions()->depth_multiplier, 2);
}

TEST(LowerCircleConv, WrongWeightLayoutIsReported) {
  try {
    lowerText(R"(graph @main {
  input %x: f32[1, 5, 5, 2]
  param %w: f32[3, 2, 3, 3] "w" = )" + test::iota(54) + R"(
  %y: f32[1, 3, 3, 3] = circle::conv2d.default(%x, %w)
  return %y
})");
    FAIL();
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("OHWI weight has 3 input channels"), std::string::npos) << e.what();
  }
}

TEST(LowerTransposeConv, CropsPyTorchPaddingWithASlice) {
  CircleModel m = lowerText(R"(graph @main {
  input %x: f32[1, 2, 3, 3]
  param %w: f32[2, 4, 3, 3] "w" = )" + test::iota(72) + R"(
  param %b: f32[4] "b" = dense<[1.0, 2.0, 3.0, 4.0]>
  %y: f32[1, 4, 6, 6] = aten::conv_transpose2d.input(%x, %w, %b, [2, 2], [1, 1], [1, 1])
  return %y
})");
  // The bias is an ADD: onert rejects TRANSPOSE_CONV's optional 4th input.
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "TRANSPOSE_CONV", "ADD", "SLICE", "TRANSPOSE"}));
  const auto &ops = m.subgraphs[0].operators;
  const CircleOperator &tconv = ops[1];
  ASSERT_EQ(tconv.inputs.size(), 3u);
  // (3 - 1) * 2 + 3 + 1 = 8 before the crop of 1 on each side.
  EXPECT_EQ(constantValues<int32_t>(m, tconv.inputs[0]), (std::vector<int32_t>{1, 8, 8, 4}));
  EXPECT_EQ(tensorAt(m, tconv.inputs[1]).shape, (std::vector<int32_t>{4, 3, 3, 2})) << "IOHW -> OHWI view";
  EXPECT_EQ(tensorAt(m, tconv.inputs[2]).shape, (std::vector<int32_t>{1, 3, 3, 2}));
  EXPECT_EQ(ops[2].inputs[0], tconv.outputs[0]);
  EXPECT_EQ(constantValues<float>(m, ops[2].inputs[1]), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(tconv.builtin_options.AsTransposeConvOptions()->padding, circle::Padding::VALID);
  EXPECT_EQ(tconv.builtin_options.AsTransposeConvOptions()->stride_h, 2);
  EXPECT_EQ(constantValues<int32_t>(m, ops[3].inputs[1]), (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[3].inputs[2]), (std::vector<int32_t>{1, 6, 6, 4}));
}

TEST(LowerTransposeConv, DynamicBatchReadsTheOutputShapeAtRuntime) {
  CircleModel m = lowerText(R"(graph @main {
  symbol s0 in [1, 8] hint 2
  input %x: f32[s0, 1, 2, 2]
  param %w: f32[1, 1, 2, 2] "w" = dense<[1.0, 2.0, 3.0, 4.0]>
  %y: f32[s0, 1, 4, 4] = aten::convolution.default(%x, %w, None, [2, 2], [0, 0], [1, 1], true, [0, 0], 1)
  return %y
})");
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "SHAPE", "GATHER", "CONCATENATION", "TRANSPOSE_CONV",
                                                  "TRANSPOSE"}));
}

TEST(LowerTransposeConv, GroupsAndDilationAreReported) {
  try {
    lowerText(R"(graph @main {
  input %x: f32[1, 2, 3, 3]
  param %w: f32[2, 2, 3, 3] "w" = )" + test::iota(36) + R"(
  %y: f32[1, 4, 5, 5] = aten::conv_transpose2d.input(%x, %w, None, [1, 1], [0, 0], [0, 0], 2)
  return %y
})");
    FAIL();
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("TRANSPOSE_CONV has no groups"), std::string::npos) << e.what();
  }
}

TEST(LowerResize, NearestAndBilinearConventions) {
  CircleModel m = lowerText(R"(graph @main {
  input %x: f32[1, 2, 3, 4]
  %n: f32[1, 2, 6, 8] = aten::upsample_nearest2d.vec(%x, None, [2.0, 2.0])
  %b: f32[1, 2, 6, 8] = aten::upsample_bilinear2d.vec(%x, [6, 8], false, None)
  %a: f32[1, 2, 6, 8] = aten::upsample_bilinear2d.vec(%x, [6, 8], true, None)
  return %n, %b, %a
})");
  const auto &ops = m.subgraphs[0].operators;
  auto names = opNames(m);
  ASSERT_EQ(names.size(), 9u);
  EXPECT_EQ(names[1], "RESIZE_NEAREST_NEIGHBOR");
  EXPECT_FALSE(ops[1].builtin_options.AsResizeNearestNeighborOptions()->half_pixel_centers);
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{6, 8}));
  EXPECT_TRUE(ops[4].builtin_options.AsResizeBilinearOptions()->half_pixel_centers);
  EXPECT_FALSE(ops[4].builtin_options.AsResizeBilinearOptions()->align_corners);
  EXPECT_TRUE(ops[7].builtin_options.AsResizeBilinearOptions()->align_corners);
  EXPECT_FALSE(ops[7].builtin_options.AsResizeBilinearOptions()->half_pixel_centers);
}

TEST(LowerResize, FractionalScaleIsReported) {
  try {
    lowerText(R"(graph @main {
  input %x: f32[1, 2, 3, 3]
  %n: f32[1, 2, 4, 4] = aten::upsample_nearest2d.vec(%x, None, [1.5, 1.5])
  return %n
})");
    FAIL();
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("does not give a whole output size"), std::string::npos) << e.what();
  }
}

TEST(LowerNormalization, InstanceNormRmsNormRopeAttentionShape) {
  CircleModel m = lowerText(R"(graph @main {
  input %x: f32[1, 4, 4, 3]
  input %h: f32[2, 5, 8]
  input %q: f32[1, 2, 1, 8]
  input %sin: f32[1, 1, 8]
  input %cos: f32[1, 1, 1, 8]
  param %w: f32[8] "w" = dense<[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]>
  %n: f32[1, 4, 4, 3] = circle::instance_norm.default(%x, None, None, 0.001)
  %r: f32[2, 5, 8] = circle::rms_norm.default(%h, %w, 1e-05)
  %p: f32[1, 2, 1, 8] = circle::rope.default(%q, %sin, %cos)
  %s: i32[3] = circle::shape.default(%h)
  return %n, %r, %p, %s
})");
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"INSTANCE_NORM", "RMS_NORM", "RESHAPE", "ROPE", "SHAPE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_FLOAT_EQ(ops[0].builtin_options.AsInstanceNormOptions()->epsilon, 0.001f);
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[1]), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[2]), (std::vector<float>{0, 0, 0}));
  EXPECT_FLOAT_EQ(ops[1].builtin_options.AsRmsNormOptions()->epsilon, 1e-5f);
  EXPECT_EQ(tensorAt(m, ops[2].outputs[0]).shape, (std::vector<int32_t>{1, 1, 1, 8})) << "tables made rank 4";
  EXPECT_EQ(ops[4].builtin_options.AsShapeOptions()->out_type, circle::TensorType::INT32);
}

TEST(LowerNormalization, AtenInstanceNormAndRmsNorm) {
  CircleModel m = lowerText(R"(graph @main {
  input %x: f32[2, 3, 4, 4]
  input %h: f32[5, 8]
  param %g: f32[3] "g" = dense<[1.0, 2.0, 3.0]>
  param %b: f32[3] "b" = dense<[0.0, 0.5, 1.0]>
  %n: f32[2, 3, 4, 4] = aten::instance_norm.default(%x, %g, %b, None, None, true, 0.1, 1e-05, false)
  %r: f32[5, 8] = aten::rms_norm.default(%h, [8])
  return %n, %r
})");
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "INSTANCE_NORM", "TRANSPOSE", "RESHAPE", "RMS_NORM",
                                                  "RESHAPE"}));
  const CircleOperator &rms = firstOp(m, "RMS_NORM");
  // eps=None is float32's machine epsilon, as in PyTorch.
  EXPECT_FLOAT_EQ(rms.builtin_options.AsRmsNormOptions()->epsilon, 1.1920929e-07f);
}

TEST(LowerNormalization, RunningStatisticsAndMultiRowRopeTablesAreReported) {
  try {
    lowerText(R"(graph @main {
  input %x: f32[2, 3, 4, 4]
  input %q: f32[1, 2, 2, 8]
  input %t: f32[1, 1, 2, 8]
  param %mean: f32[3] "m" = dense<[0.0, 0.0, 0.0]>
  param %var: f32[3] "v" = dense<[1.0, 1.0, 1.0]>
  %n: f32[2, 3, 4, 4] = aten::instance_norm.default(%x, None, None, %mean, %var, false, 0.1, 1e-05, false)
  %p: f32[1, 2, 2, 8] = circle::rope.default(%q, %t, %t)
  return %n, %p
})");
    FAIL();
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("use_input_stats=False"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("one row of 8 values"), std::string::npos) << e.what();
  }
}

TEST(LowerAttention, ElevenOperandsInOrder) {
  CircleModel m = lowerText(R"(graph @main {
  input %h: f32[1, 1, 16]
  input %wq: f32[16, 16]
  input %wk: f32[16, 16]
  input %wv: f32[16, 16]
  input %wo: f32[16, 16]
  input %cos: f32[1, 1, 4]
  input %sin: f32[1, 1, 4]
  input %mask: f32[1, 1, 1, 32]
  input %kc: f32[1, 32, 4, 4]
  input %vc: f32[1, 32, 4, 4]
  input %pos: i64[1]
  %a: f32[1, 1, 16] = circle::attention.default(%h, %wq, %wk, %wv, %wo, %cos, %sin, %mask, %kc, %vc, %pos)
  return %a
})");
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"ATTENTION"}));
  const CircleOperator &op = m.subgraphs[0].operators[0];
  ASSERT_EQ(op.inputs.size(), 11u);
  EXPECT_EQ(tensorAt(m, op.inputs[10]).name, "pos");
  EXPECT_NE(op.builtin_options.AsAttentionOptions(), nullptr);
}

} // namespace
} // namespace tico
