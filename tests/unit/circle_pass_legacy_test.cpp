// Golden tests of simplify-reduction-ops and of the optional O1 passes
// (legalize-dynamic-fully-connected, resolve-legacy-custom-ops, fuse-transpose-conv-slice).
#include "circle_pass_test_support.h"

#include <flatbuffers/flexbuffers.h>

namespace tico::test {
namespace {

using circle::BuiltinOperator;

circle::BuiltinOptionsUnion reducerOptions(bool keep_dims) {
  circle::ReducerOptionsT o;
  o.keep_dims = keep_dims;
  return ModelBuilder::options(o);
}

TEST(CirclePassSimplifyReduction, MeanOfMeanMergesAxes) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3, 4});
  int32_t a1 = b.constant("a1", i32({1}, {2}));
  int32_t a2 = b.constant("a2", i32({1}, {1}));
  int32_t m1 = b.tensor("m1", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2});
  b.op(BuiltinOperator::MEAN, {x, a1}, {m1}, reducerOptions(false));
  b.op(BuiltinOperator::MEAN, {m1, a2}, {y}, reducerOptions(false));
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-reduction-ops"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::MEAN});
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], x);
}

TEST(CirclePassSimplifyReduction, GlobalMeanAfterLayoutTransposeDropsTheTranspose) {
  // NHWC y -> TRANSPOSE to NCHW -> mean over (2, 3) with keep_dims=false -> [N, C].
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 3, 4, 2});
  int32_t perm = b.constant("perm", i32({4}, {0, 3, 1, 2}));
  int32_t t = b.tensor("t", DType::Float32, {1, 2, 3, 4});
  int32_t axes = b.constant("axes", i32({2}, {2, 3}));
  int32_t y = b.tensor("y", DType::Float32, {1, 2});
  b.op(BuiltinOperator::TRANSPOSE, {x, perm}, {t}, transposeOptions());
  b.op(BuiltinOperator::MEAN, {t, axes}, {y}, reducerOptions(false));
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-reduction-ops"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(countOps(m, BuiltinOperator::TRANSPOSE), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::MEAN), 1u);
}

TEST(CirclePassSimplifyReduction, ReductionsOverUnitDimsBecomeReshapes) {
  // MEAN over the one head of [1, 1, 3, 3] (attention weights averaged over heads), and a
  // keep_dims SUM over two unit dims; a MAX over a dim of 2 stays.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 1, 3, 3});
  int32_t z = b.input("z", DType::Float32, {2, 1, 3});
  int32_t a1 = b.constant("a1", i32({1}, {1}));
  int32_t a2 = b.constant("a2", i32({2}, {0, -3}));
  int32_t a3 = b.constant("a3", i32({2}, {0, 1}));
  int32_t mean = b.tensor("mean", DType::Float32, {1, 3, 3});
  int32_t sum = b.tensor("sum", DType::Float32, {1, 1, 3, 3});
  int32_t max = b.tensor("max", DType::Float32, {3});
  b.op(BuiltinOperator::MEAN, {x, a1}, {mean}, reducerOptions(false));
  b.op(BuiltinOperator::SUM, {x, a2}, {sum}, reducerOptions(true));
  b.op(BuiltinOperator::REDUCE_MAX, {z, a3}, {max}, reducerOptions(false));
  b.output(mean);
  b.output(sum);
  b.output(max);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-reduction-ops"));
    runCirclePass(model, "dce");
  }, 0.0);
  EXPECT_EQ(countOps(m, BuiltinOperator::MEAN), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::SUM), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::RESHAPE), 2u);
  EXPECT_EQ(countOps(m, BuiltinOperator::REDUCE_MAX), 1u) << "a dim of 2 is reduced";
}

TEST(CirclePassSimplifyReduction, DifferentReductionsStay) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3, 4});
  int32_t a1 = b.constant("a1", i32({1}, {2}));
  int32_t a2 = b.constant("a2", i32({1}, {1}));
  int32_t m1 = b.tensor("m1", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2});
  b.op(BuiltinOperator::SUM, {x, a1}, {m1}, reducerOptions(false));
  b.op(BuiltinOperator::REDUCE_MAX, {m1, a2}, {y}, reducerOptions(false));
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "simplify-reduction-ops"));
  EXPECT_EQ(m.subgraphs[0].operators.size(), 2u);
}

TEST(CirclePassLegalizeDynamicFc, RuntimeWeightsBecomeBatchMatmulPlusBias) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 4});
  int32_t w = b.input("w", DType::Float32, {3, 4});
  int32_t bias = b.constant("b", f32({3}, {0.5f, 0.0f, -1.0f}));
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, w, bias}, {y}, fcOptions(circle::ActivationFunctionType::RELU));
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "legalize-dynamic-fully-connected")); });
  EXPECT_EQ(countOps(m, BuiltinOperator::FULLY_CONNECTED), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::BATCH_MATMUL), 1u);
  EXPECT_EQ(m.subgraphs[0].operators.back().outputs[0], y);
}

TEST(CirclePassLegalizeDynamicFc, ConstantWeightsStay) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 4});
  int32_t w = b.constant("w", f32({3, 4}, randomFloats(12, 41)));
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {y}, fcOptions());
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "legalize-dynamic-fully-connected"));
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED});
}

// x + y written as the TensorFlow custom operator AddV2 (custom options: an empty FlexBuffers
// map, as the old exporters wrote them).
CircleModel customAddV2(bool valid_options) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t z = b.input("z", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.output(y);
  CircleModel m = b.model();
  CircleOperator op;
  op.opcode_index = m.operatorCodeIndex(BuiltinOperator::CUSTOM, "AddV2");
  op.inputs = {x, z};
  op.outputs = {y};
  if (valid_options) {
    flexbuffers::Builder fbb;
    fbb.Map([] {});
    fbb.Finish();
    op.custom_options = fbb.GetBuffer();
  } else {
    op.custom_options = {0xff, 0x01};
  }
  m.subgraphs[0].operators.push_back(std::move(op));
  return m;
}

TEST(CirclePassResolveLegacyCustomOps, AddV2BecomesAddAndRuns) {
  CircleModel m = customAddV2(true);
  EXPECT_TRUE(runCirclePass(m, "resolve-legacy-custom-ops"));
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ADD});
  // The builtin runs (the custom operator does not): check against x + z directly.
  auto out = runModel(std::make_shared<const CircleModel>(m), {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                                                                 f32({2, 3}, {0.5f, 0.5f, 0.5f, -1, -1, -1})});
  expectFloats(*out[0], {1.5f, 2.5f, 3.5f, 3, 4, 5});
}

TEST(CirclePassResolveLegacyCustomOps, DisabledRuleAndUnknownCustomOpsStay) {
  CircleModel m = customAddV2(false);
  EXPECT_FALSE(runCirclePass(m, "resolve-legacy-custom-ops", {{"add_v2", false}}));
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CUSTOM});
  m.operator_codes[m.subgraphs[0].operators[0].opcode_index].custom_code = "Erf";
  EXPECT_FALSE(runCirclePass(m, "resolve-legacy-custom-ops"));
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::CUSTOM});
}

// x[1,2,2,1] -> TRANSPOSE_CONV(3x3, stride 2, VALID, output 5x5) -> SLICE begin (0,top,left,0)
// size 3x3.
CircleModel transposeConvSlice(int32_t top, int32_t left) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 2, 2, 1});
  int32_t shape = b.constant("output_shape", i32({4}, {1, 5, 5, 1}));
  int32_t w = b.constant("w", f32({1, 3, 3, 1}, randomFloats(9, 61)));
  int32_t bias = b.constant("b", f32({1}, {0.25f}));
  int32_t full = b.tensor("full", DType::Float32, {1, 5, 5, 1});
  circle::TransposeConvOptionsT options;
  options.padding = circle::Padding::VALID;
  options.stride_h = options.stride_w = 2;
  b.op(BuiltinOperator::TRANSPOSE_CONV, {shape, w, x, bias}, {full}, ModelBuilder::options(options));
  int32_t begin = b.constant("begin", i32({4}, {0, top, left, 0}));
  int32_t size = b.constant("size", i32({4}, {1, 3, 3, 1}));
  int32_t y = b.tensor("y", DType::Float32, {1, 3, 3, 1});
  b.op(BuiltinOperator::SLICE, {full, begin, size}, {y}, ModelBuilder::options(circle::SliceOptionsT{}));
  b.output(y);
  return b.model();
}

TEST(CirclePassFuseTransposeConvSlice, CentredCropBecomesSamePadding) {
  CircleModel m = transposeConvSlice(1, 1);
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "fuse-transpose-conv-slice")); });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::TRANSPOSE_CONV});
  const CircleOperator &t = m.subgraphs[0].operators[0];
  EXPECT_EQ(t.builtin_options.AsTransposeConvOptions()->padding, circle::Padding::SAME);
  EXPECT_EQ(t.outputs[0], m.subgraphs[0].outputs[0]);
}

TEST(CirclePassFuseTransposeConvSlice, CropNoPaddingProducesStays) {
  CircleModel m = transposeConvSlice(0, 1);
  EXPECT_FALSE(runCirclePass(m, "fuse-transpose-conv-slice"));
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::TRANSPOSE_CONV, BuiltinOperator::SLICE}));
}

// FC3(FC1(x) * (Erf(FC2(x)) + 1)) with FC2 = FC1 * sqrt(1/2) (times `fc2_factor`).
CircleModel legacyGeluBlock(float fc2_factor) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  std::vector<float> w1 = randomFloats(12, 71), b1 = {0.1f, -0.2f, 0.3f, 0.0f};
  std::vector<float> w2 = w1, b2 = b1;
  const float k = static_cast<float>(std::sqrt(0.5)) * fc2_factor;
  for (float &v : w2)
    v *= k;
  for (float &v : b2)
    v *= k;
  int32_t W1 = b.constant("w1", f32({4, 3}, w1)), B1 = b.constant("b1", f32({4}, b1));
  int32_t W2 = b.constant("w2", f32({4, 3}, w2)), B2 = b.constant("b2", f32({4}, b2));
  int32_t W3 = b.constant("w3", f32({2, 4}, randomFloats(8, 72))), B3 = b.constant("b3", f32({2}, {0.5f, -0.5f}));
  int32_t one = b.constant("one", f32({}, {1.0f}));
  int32_t h1 = b.tensor("h1", DType::Float32, {2, 4}), h2 = b.tensor("h2", DType::Float32, {2, 4});
  int32_t e = b.tensor("erf", DType::Float32, {2, 4}), a = b.tensor("a", DType::Float32, {2, 4});
  int32_t m = b.tensor("m", DType::Float32, {2, 4}), y = b.tensor("y", DType::Float32, {2, 2});
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, W1, B1}, {h1}, fcOptions());
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, W2, B2}, {h2}, fcOptions());
  CircleModel model = b.model();
  CircleOperator erf;
  erf.opcode_index = model.operatorCodeIndex(BuiltinOperator::CUSTOM, "Erf");
  erf.inputs = {h2};
  erf.outputs = {e};
  model.subgraphs[0].operators.push_back(std::move(erf));
  auto push = [&](BuiltinOperator code, std::vector<int32_t> in, int32_t out, circle::BuiltinOptionsUnion options) {
    CircleOperator op;
    op.opcode_index = model.operatorCodeIndex(code);
    op.inputs = std::move(in);
    op.outputs = {out};
    op.builtin_options = std::move(options);
    model.subgraphs[0].operators.push_back(std::move(op));
  };
  push(BuiltinOperator::ADD, {e, one}, a, addOptions());
  push(BuiltinOperator::MUL, {h1, a}, m, mulOptions());
  push(BuiltinOperator::FULLY_CONNECTED, {m, W3, B3}, y, fcOptions());
  model.subgraphs[0].outputs = {y};
  return model;
}

TEST(CirclePassFuseLegacyFcGeluFc, ErfBlockBecomesGeluWithDoubledWeights) {
  CircleModel m = legacyGeluBlock(1.0f);
  EXPECT_TRUE(runCirclePass(m, "fuse-legacy-fc-gelu-fc"));
  runCirclePass(m, "dce");
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED, BuiltinOperator::GELU,
                                                      BuiltinOperator::FULLY_CONNECTED}));
  // The custom Erf does not run; compare with FC3(h * (1 + erf(h / sqrt 2))) computed here.
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f};
  auto out = runModel(std::make_shared<const CircleModel>(m), {f32({2, 3}, x)});
  std::vector<float> w1 = randomFloats(12, 71), b1 = {0.1f, -0.2f, 0.3f, 0.0f}, w3 = randomFloats(8, 72);
  std::vector<float> expected;
  for (int r = 0; r < 2; ++r) {
    std::vector<double> g(4);
    for (int j = 0; j < 4; ++j) {
      double h = b1[j];
      for (int i = 0; i < 3; ++i)
        h += double(w1[j * 3 + i]) * x[r * 3 + i];
      g[j] = h * (1.0 + std::erf(h / std::sqrt(2.0)));
    }
    for (int o = 0; o < 2; ++o) {
      double v = o == 0 ? 0.5 : -0.5;
      for (int j = 0; j < 4; ++j)
        v += double(w3[o * 4 + j]) * g[j];
      expected.push_back(static_cast<float>(v));
    }
  }
  expectFloats(*out[0], expected, 1e-5f);
}

TEST(CirclePassFuseLegacyFcGeluFc, MismatchedSecondFcStays) {
  CircleModel m = legacyGeluBlock(1.1f);
  EXPECT_FALSE(runCirclePass(m, "fuse-legacy-fc-gelu-fc"));
  EXPECT_EQ(countOps(m, BuiltinOperator::GELU), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::CUSTOM), 1u);
}

} // namespace
} // namespace tico::test
