// Golden tests of fuse-linear-ops: constant MUL / ADD / SUB folded into the weights and bias of
// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (batch normalisation after a convolution is
// the typical case), and the cases it must leave alone.
#include "circle_pass_test_support.h"

namespace tico::test {
namespace {

using circle::ActivationFunctionType;
using circle::BuiltinOperator;

// x[1,3,3,2] -> CONV_2D(4 filters 3x3 SAME) -> MUL scale[4] -> ADD shift[4] (fused RELU) -> y
CircleModel convBatchNorm(std::vector<int32_t> scale_shape, bool conv_has_other_reader = false) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 3, 3, 2});
  int32_t w = b.constant("w", f32({4, 3, 3, 2}, randomFloats(72, 21)));
  int32_t bias = b.constant("b", f32({4}, {0.1f, 0.2f, -0.3f, 0.0f}));
  int64_t n = 1;
  for (int32_t d : scale_shape)
    n *= d;
  std::vector<int64_t> dims(scale_shape.begin(), scale_shape.end());
  int32_t scale = b.constant("scale", f32(dims, randomFloats(static_cast<std::size_t>(n), 22)));
  int32_t shift = b.constant("shift", f32({4}, {0.5f, -0.5f, 0.25f, 1.0f}));
  int32_t c = b.tensor("conv", DType::Float32, {1, 3, 3, 4});
  int32_t s = b.tensor("scaled", DType::Float32, {1, 3, 3, 4});
  int32_t y = b.tensor("y", DType::Float32, {1, 3, 3, 4});
  b.op(BuiltinOperator::CONV_2D, {x, w, bias}, {c}, conv2dOptions(ActivationFunctionType::NONE, circle::Padding::SAME));
  b.op(BuiltinOperator::MUL, {c, scale}, {s}, mulOptions());
  b.op(BuiltinOperator::ADD, {s, shift}, {y}, addOptions(ActivationFunctionType::RELU));
  b.output(y);
  if (conv_has_other_reader)
    b.output(c);
  return b.model();
}

TEST(CirclePassFuseLinear, BatchNormAfterConvolutionFoldsIntoWeightsAndBias) {
  CircleModel m = convBatchNorm({4});
  const uint32_t original_weights = m.subgraphs[0].tensors[1].buffer;
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D});
  const CircleOperator &conv = m.subgraphs[0].operators[0];
  EXPECT_EQ(conv.builtin_options.AsConv2DOptions()->fused_activation_function, ActivationFunctionType::RELU);
  EXPECT_EQ(tensorAt(m, conv.outputs[0]).name, "y");
  // New constants: the original weights are not modified (they may be shared or mapped).
  EXPECT_NE(tensorAt(m, conv.inputs[1]).buffer, original_weights);
  EXPECT_EQ(valuesOf<float>(*m.buffers[original_weights].data), randomFloats(72, 21));
}

TEST(CirclePassFuseLinear, ADynamicBatchDoesNotStopTheFolding) {
  // A model exported with a dynamic batch: the activations' signatures hold -1, the constants
  // and the channels are static. The batch norm folds and the RELU fuses as for a static batch.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 3, 3, 2}, {-1, 3, 3, 2});
  int32_t w = b.constant("w", f32({4, 3, 3, 2}, randomFloats(72, 21)));
  int32_t bias = b.constant("b", f32({4}, {0.1f, 0.2f, -0.3f, 0.0f}));
  int32_t scale = b.constant("scale", f32({1, 1, 1, 4}, {0.5f, 1.5f, -2.0f, 0.75f}));
  int32_t c = b.tensor("conv", DType::Float32, {1, 3, 3, 4}, {-1, 3, 3, 4});
  int32_t s = b.tensor("scaled", DType::Float32, {1, 3, 3, 4}, {-1, 3, 3, 4});
  int32_t y = b.tensor("y", DType::Float32, {1, 3, 3, 4}, {-1, 3, 3, 4});
  b.op(BuiltinOperator::CONV_2D, {x, w, bias}, {c}, conv2dOptions(ActivationFunctionType::NONE, circle::Padding::SAME));
  b.op(BuiltinOperator::MUL, {c, scale}, {s}, mulOptions());
  b.op(BuiltinOperator::RELU, {s}, {y});
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    EXPECT_TRUE(runCirclePass(model, "fuse-activation-function"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D});
  const CircleOperator &conv = m.subgraphs[0].operators[0];
  EXPECT_EQ(conv.builtin_options.AsConv2DOptions()->fused_activation_function, ActivationFunctionType::RELU);
  EXPECT_EQ(tensorAt(m, conv.outputs[0]).name, "y");
  EXPECT_EQ(tensorAt(m, conv.outputs[0]).shape_signature, (std::vector<int32_t>{-1, 3, 3, 4}));
}

TEST(CirclePassFuseLinear, BroadcastRankFourChannelConstantFolds) {
  CircleModel m = convBatchNorm({1, 1, 1, 4});
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D});
}

TEST(CirclePassFuseLinear, SpatiallyVaryingConstantStays) {
  // A [1,3,3,4] scale is not per-channel: it cannot live in the weights.
  CircleModel m = convBatchNorm({1, 3, 3, 4});
  runCirclePass(m, "fuse-linear-ops");
  EXPECT_EQ(countOps(m, BuiltinOperator::MUL), 1u);
}

TEST(CirclePassFuseLinear, ConvolutionResultWithAnotherReaderStays) {
  CircleModel m = convBatchNorm({4}, /*conv_has_other_reader=*/true);
  EXPECT_FALSE(runCirclePass(m, "fuse-linear-ops"));
  EXPECT_EQ(m.subgraphs[0].operators.size(), 3u);
}

TEST(CirclePassFuseLinear, AddAfterFullyConnectedWithoutBiasBecomesItsBias) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 4});
  int32_t w = b.constant("w", f32({3, 4}, randomFloats(12, 31)));
  int32_t k = b.constant("k", f32({3}, {1.0f, -2.0f, 0.5f}));
  int32_t f = b.tensor("fc", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {f}, fcOptions());
  b.op(BuiltinOperator::ADD, {f, k}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED});
  const CircleOperator &fc = m.subgraphs[0].operators[0];
  ASSERT_EQ(fc.inputs.size(), 3u);
  ASSERT_GE(fc.inputs[2], 0);
  EXPECT_EQ(valuesOf<float>(*m.buffers[tensorAt(m, fc.inputs[2]).buffer].data),
            (std::vector<float>{1.0f, -2.0f, 0.5f}));
}

TEST(CirclePassFuseLinear, ScaleBeforeFullyConnectedFoldsIntoInputColumns) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 4});
  int32_t s = b.constant("s", f32({4}, {1.0f, 2.0f, -1.0f, 0.5f}));
  int32_t w = b.constant("w", f32({3, 4}, randomFloats(12, 32)));
  int32_t bias = b.constant("b", f32({3}, {0.0f, 0.1f, 0.2f}));
  int32_t xs = b.tensor("xs", DType::Float32, {2, 4});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::MUL, {x, s}, {xs}, mulOptions());
  b.op(BuiltinOperator::FULLY_CONNECTED, {xs, w, bias}, {y}, fcOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED});
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], x);
}

TEST(CirclePassFuseLinear, TiedWeightsAreNotScaledIntoACopy) {
  // A tied embedding table and output projection (Gemma, Llama 3.2): the final norm's scale
  // before the projection would need a scaled copy of the table, the GATHER still reading the
  // original. The scale stays; a bias-only ADD after the projection still folds.
  ModelBuilder b;
  int32_t ids = b.input("ids", DType::Int32, {2});
  int32_t table = b.constant("table", f32({6, 4}, randomFloats(24, 33)));
  int32_t s = b.constant("s", f32({4}, {1.0f, 2.0f, -1.0f, 0.5f}));
  int32_t k = b.constant("k", f32({6}, randomFloats(6, 34)));
  int32_t rows = b.tensor("rows", DType::Float32, {2, 4});
  int32_t scaled = b.tensor("scaled", DType::Float32, {2, 4});
  int32_t logits = b.tensor("logits", DType::Float32, {2, 6});
  int32_t y = b.tensor("y", DType::Float32, {2, 6});
  b.op(BuiltinOperator::GATHER, {table, ids}, {rows}, ModelBuilder::options(circle::GatherOptionsT{}));
  b.op(BuiltinOperator::MUL, {rows, s}, {scaled}, mulOptions());
  b.op(BuiltinOperator::FULLY_CONNECTED, {scaled, table, -1}, {logits}, fcOptions());
  b.op(BuiltinOperator::ADD, {logits, k}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  const std::size_t buffers = m.buffers.size();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::GATHER, BuiltinOperator::MUL,
                                                        BuiltinOperator::FULLY_CONNECTED}));
  const CircleOperator &fc = m.subgraphs[0].operators[2];
  EXPECT_EQ(fc.inputs[1], table) << "the projection reads the table itself";
  EXPECT_EQ(m.buffers.size(), buffers + 1) << "only the new bias is a new buffer";
}

TEST(CirclePassFuseLinear, RuntimeOperandStays) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 4});
  int32_t z = b.input("z", DType::Float32, {2, 3});
  int32_t w = b.constant("w", f32({3, 4}, randomFloats(12, 33)));
  int32_t f = b.tensor("fc", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {f}, fcOptions());
  b.op(BuiltinOperator::ADD, {f, z}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "fuse-linear-ops"));
  EXPECT_EQ(m.subgraphs[0].operators.size(), 2u);
}

// x[1,3,3,2] -> CONV_2D(4 filters) -> TRANSPOSE to NCHW -> MUL c -> ADD shift (fused RELU) -> y,
// as the converter emits conv + batch norm + relu. `c_shape` is the shape of the MUL constant.
CircleModel convTransposeBatchNorm(std::vector<int32_t> c_shape) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 3, 3, 2});
  int32_t w = b.constant("w", f32({4, 1, 1, 2}, randomFloats(8, 23)));
  int32_t bias = b.constant("b", f32({4}, {0.1f, 0.2f, -0.3f, 0.0f}));
  int32_t c = b.tensor("conv", DType::Float32, {1, 3, 3, 4});
  b.op(BuiltinOperator::CONV_2D, {x, w, bias}, {c}, conv2dOptions());
  int32_t perm = b.constant("perm", i32({4}, {0, 3, 1, 2}));
  int32_t t = b.tensor("nchw", DType::Float32, {1, 4, 3, 3});
  b.op(BuiltinOperator::TRANSPOSE, {c, perm}, {t}, transposeOptions());
  int64_t n = 1;
  for (int32_t d : c_shape)
    n *= d;
  int32_t scale =
      b.constant("scale", f32(std::vector<int64_t>(c_shape.begin(), c_shape.end()), randomFloats(std::size_t(n), 24)));
  int32_t shift = b.constant("shift", f32({1, 4, 1, 1}, {0.5f, -0.5f, 0.25f, 1.0f}));
  int32_t s = b.tensor("scaled", DType::Float32, {1, 4, 3, 3});
  int32_t y = b.tensor("y", DType::Float32, {1, 4, 3, 3});
  b.op(BuiltinOperator::MUL, {t, scale}, {s}, mulOptions());
  b.op(BuiltinOperator::ADD, {s, shift}, {y}, addOptions(ActivationFunctionType::RELU));
  b.output(y);
  return b.model();
}

TEST(CirclePassFuseLinear, BatchNormBehindTheLayoutTransposeFoldsIntoTheConvolution) {
  CircleModel m = convTransposeBatchNorm({1, 4, 1, 1});
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "fuse-linear-ops"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::CONV_2D, BuiltinOperator::TRANSPOSE}));
  EXPECT_EQ(m.subgraphs[0].operators[0].builtin_options.AsConv2DOptions()->fused_activation_function,
            ActivationFunctionType::RELU);
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].operators[1].outputs[0]).name, "y");
}

TEST(CirclePassFuseLinear, ConstantAlongASpatialAxisBehindTheTransposeStays) {
  // [1,1,3,1] varies along H of the NCHW tensor, not along the channels.
  CircleModel m = convTransposeBatchNorm({1, 1, 3, 1});
  runCirclePass(m, "fuse-linear-ops");
  EXPECT_EQ(countOps(m, BuiltinOperator::MUL), 1u);
}

} // namespace
} // namespace tico::test
