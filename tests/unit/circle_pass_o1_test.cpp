// The O1 preset (configs/pipelines/circle-o1.yaml) as a whole: it is a valid pipeline manifest
// for the registered Circle passes, it optimizes the converter's typical output (layout
// transposes around convolutions, batch normalisation, ReLU, a linear layer) without changing
// the outputs, and its result is deterministic: the same bytes on every run and under the
// restart strategy.
#include "circle_pass_test_support.h"

#include "tico/circle/writer.h"

namespace tico::test {
namespace {

using circle::BuiltinOperator;

const std::string kPreset = std::string(TICO_SOURCE_DIR) + "/configs/pipelines/circle-o1.yaml";

int32_t transposeOf(ModelBuilder &b, int32_t x, const std::vector<int32_t> &perm, std::vector<int32_t> shape,
                    const std::string &name) {
  int32_t p = b.constant(name + "/perm", i32({4}, perm));
  int32_t y = b.tensor(name, DType::Float32, std::move(shape));
  b.op(BuiltinOperator::TRANSPOSE, {x, p}, {y}, transposeOptions());
  return y;
}

// What the converter emits for conv -> batchnorm -> relu -> conv -> mean -> linear in NCHW:
// every convolution wrapped in layout transposes, batch norm as MUL/ADD of per-channel
// constants in NCHW, a no-op RESHAPE, two copies of the same constant.
CircleModel convertedLikeModel() {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 2, 4, 4});
  int32_t in1 = transposeOf(b, x, {0, 2, 3, 1}, {1, 4, 4, 2}, "conv1/in");
  int32_t w1 = b.constant("conv1/w", f32({3, 3, 3, 2}, randomFloats(54, 51)));
  int32_t b1 = b.constant("conv1/b", f32({3}, {0.1f, 0.0f, -0.1f}));
  int32_t c1 = b.tensor("conv1", DType::Float32, {1, 4, 4, 3});
  b.op(BuiltinOperator::CONV_2D, {in1, w1, b1}, {c1}, conv2dOptions(circle::ActivationFunctionType::NONE, circle::Padding::SAME));
  int32_t out1 = transposeOf(b, c1, {0, 3, 1, 2}, {1, 3, 4, 4}, "conv1/out");
  int32_t scale = b.constant("bn/scale", f32({1, 3, 1, 1}, {0.5f, 2.0f, -1.0f}));
  int32_t shift = b.constant("bn/shift", f32({1, 3, 1, 1}, {0.25f, -0.5f, 1.0f}));
  int32_t s = b.tensor("bn/mul", DType::Float32, {1, 3, 4, 4});
  int32_t a = b.tensor("bn/add", DType::Float32, {1, 3, 4, 4});
  int32_t r = b.tensor("relu", DType::Float32, {1, 3, 4, 4});
  b.op(BuiltinOperator::MUL, {out1, scale}, {s}, mulOptions());
  b.op(BuiltinOperator::ADD, {s, shift}, {a}, addOptions());
  b.op(BuiltinOperator::RELU, {a}, {r});
  int32_t same = b.constant("same_shape", i32({4}, {1, 3, 4, 4}));
  int32_t rr = b.tensor("noop_reshape", DType::Float32, {1, 3, 4, 4});
  b.op(BuiltinOperator::RESHAPE, {r, same}, {rr}, reshapeOptions({1, 3, 4, 4}));
  int32_t in2 = transposeOf(b, rr, {0, 2, 3, 1}, {1, 4, 4, 3}, "conv2/in");
  int32_t w2 = b.constant("conv2/w", f32({2, 1, 1, 3}, randomFloats(6, 52)));
  int32_t b2 = b.constant("conv2/b", f32({2}, {0.0f, 0.2f}));
  int32_t c2 = b.tensor("conv2", DType::Float32, {1, 4, 4, 2});
  b.op(BuiltinOperator::CONV_2D, {in2, w2, b2}, {c2}, conv2dOptions());
  int32_t out2 = transposeOf(b, c2, {0, 3, 1, 2}, {1, 2, 4, 4}, "conv2/out");
  int32_t axes = b.constant("mean/axes", i32({2}, {2, 3}));
  int32_t mean = b.tensor("mean", DType::Float32, {1, 2});
  circle::ReducerOptionsT reducer;
  b.op(BuiltinOperator::MEAN, {out2, axes}, {mean}, ModelBuilder::options(reducer));
  int32_t fw = b.constant("fc/w", f32({2, 2}, {1.0f, 0.5f, -0.5f, 1.0f}));
  int32_t fc = b.tensor("fc", DType::Float32, {1, 2});
  b.op(BuiltinOperator::FULLY_CONNECTED, {mean, fw, -1}, {fc}, fcOptions());
  int32_t fb = b.constant("fc/bias_add", f32({2}, {0.25f, 0.25f}));
  int32_t y = b.tensor("y", DType::Float32, {1, 2});
  b.op(BuiltinOperator::ADD, {fc, fb}, {y}, addOptions());
  b.output(y);
  return b.model();
}

TEST(CirclePassO1, PresetIsAValidManifestOfCircleStages) {
  Manifest manifest = Manifest::load(kPreset);
  EXPECT_NO_THROW(manifest.validate(circlePassRegistry()));
  ASSERT_FALSE(manifest.stages.empty());
  // A lower stage without options first (it marks where the stages run in a conversion), then
  // Circle stages only.
  EXPECT_EQ(manifest.stages.front().kind, StageKind::Lower);
  EXPECT_TRUE(manifest.stages.front().options.empty());
  for (std::size_t i = 1; i < manifest.stages.size(); ++i)
    EXPECT_EQ(manifest.stages[i].kind, StageKind::Circle) << manifest.stages[i].name;
  EXPECT_EQ(manifest.stages.back().name, "circle-compact");
}

TEST(CirclePassO1, OptimizesConvertedModelWithoutChangingOutputs) {
  CircleModel m = convertedLikeModel();
  const std::size_t ops_before = m.subgraphs[0].operators.size();
  double diff = expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCircleManifest(model, kPreset)); });
  EXPECT_LE(diff, 1e-6);
  // Batch norm folded into conv1 with the ReLU fused, the inner layout transposes gone, the
  // mean computed on NHWC directly, the bias add folded into the fully-connected layer.
  EXPECT_EQ(countOps(m, BuiltinOperator::MUL), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::ADD), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::RELU), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::RESHAPE), 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::TRANSPOSE), 1u); // the model's entry transpose
  EXPECT_EQ(countOps(m, BuiltinOperator::CONV_2D), 2u);
  EXPECT_LT(m.subgraphs[0].operators.size(), ops_before);
  // Nothing unused is left behind.
  for (const auto &d : verifyCircleModel(m))
    EXPECT_NE(d.severity, CircleSeverity::Warning) << d.str();
  // A second run finds nothing more to do.
  CircleModel again = m;
  runCircleManifest(again, kPreset);
  EXPECT_EQ(serializeCircle(again), serializeCircle(m));
}

TEST(CirclePassO1, OutputIsDeterministicAndIndependentOfTheSchedule) {
  CircleModel first = convertedLikeModel();
  CircleModel second = convertedLikeModel();
  runCircleManifest(first, kPreset);
  runCircleManifest(second, kPreset);
  EXPECT_EQ(serializeCircle(first), serializeCircle(second));

  // The same preset under the restart strategy reaches the same bytes.
  Manifest manifest = Manifest::load(kPreset);
  CircleModel restarted = convertedLikeModel();
  for (auto &stage : manifest.stages) {
    if (stage.kind != StageKind::Circle)
      continue;
    if (stage.strategy == PassStrategy::UntilNoChange)
      stage.strategy = PassStrategy::Restart;
    runStage(circlePassRegistry(), stage, restarted);
  }
  EXPECT_EQ(serializeCircle(restarted), serializeCircle(first));
}

} // namespace
} // namespace tico::test
