// The "aten" evaluator on the circle:: ops that circle-legalize creates inside the ATen stages,
// and on the argument forms the pipeline leaves behind (detach_, a SymInt in a Tensor slot, a
// rank-0 constant in a Scalar slot). Expected values are computed by hand (the comments show
// how) or, for the multi-channel layout checks, by the evaluator's own ATen op on NCHW data.
#include "pt2/torch_op_table.h"
#include "eval_test_support.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tico {
namespace {

using namespace evaltest;

void expectNear(const std::vector<float> &actual, const std::vector<float> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1e-5 * std::abs(expected[i])) << "element " << i;
}

// The circle:: schemas, as tico-run has them: registered by the circle-lowering plugin.
const OpSchemaRegistry &circleSchemas() {
  struct Loaded {
    Registry registry;
    PluginSet plugins;
  };
  static const Loaded *loaded = [] {
    auto *l = new Loaded();
    l->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so", l->registry); // the PyTorch op table
    l->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-circle-lowering.so", l->registry);
    return l;
  }();
  return loaded->registry.schemas();
}

// [N, C, H, W] contiguous values rearranged as [N, H, W, C].
std::vector<float> toNhwc(const std::vector<float> &nchw, int64_t n, int64_t c, int64_t h, int64_t w) {
  std::vector<float> out(nchw.size());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          out[static_cast<std::size_t>(((a * h + y) * w + x) * c + ch)] =
              nchw[static_cast<std::size_t>(((a * c + ch) * h + y) * w + x)];
  return out;
}

std::vector<float> ramp(std::size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<float>(i) * scale) + offset;
  return v;
}

class EvalCircleOps : public ::testing::Test {
protected:
  void SetUp() override {
    TICO_REQUIRE_ATEN_EVAL();
    g.setSchemas(&circleSchemas());
  }
  const Evaluator &evaluator() const { return *atenEval()->evaluator; }

  Value *in(const std::string &name, std::shared_ptr<const TensorData> data) {
    Shape shape;
    for (int64_t d : data->sizes)
      shape.push_back(d);
    Value *v = g.addInput(InputKind::User, name, data->dtype, shape);
    env[v] = {std::move(data), std::nullopt};
    return v;
  }

  std::shared_ptr<const TensorData> eval(const std::string &op_text, std::vector<NamedArg> args, DType dtype,
                                         Shape shape) {
    Node *n = g.createNode(op(op_text), std::move(args), {tensorOut(dtype, std::move(shape))});
    EXPECT_TRUE(evaluator().canEvaluate(*n)) << op_text;
    std::vector<EvalValue> out = evaluator().evaluate(*n, env);
    EXPECT_EQ(out.size(), 1u);
    EXPECT_TRUE(out.at(0).tensor);
    return out.at(0).tensor;
  }

  Graph g{&tico::pt2::torchOpSchemas()};
  EvalEnv env;
};

NamedArg named(const std::string &name, Argument a) { return NamedArg{name, std::move(a)}; }
NamedArg value(const std::string &name, Value *v) { return NamedArg{name, Argument::value(v)}; }

TEST_F(EvalCircleOps, Conv2dSingleChannelWithPadding) {
  // 1 channel: NHWC and NCHW hold the same bytes. Values as in EvalAtenOps.Conv2dWithPadding.
  Value *x = in("x", f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Value *w = in("w", f32({1, 2, 2, 1}, {1, 2, 3, 4}));
  Value *b = in("b", f32({1}, {0.5f}));
  auto r = eval("circle::conv2d.default", {value("input", x), value("weight", w), value("bias", b),
                                           named("padding", Argument::ints({1, 1}))},
                DType::Float32, {1, 4, 4, 1});
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{1, 4, 4, 1}));
  expectNear(valuesOf<float>(*r), {4.5f, 11.5f, 18.5f, 9.5f, 18.5f, 37.5f, 47.5f, 21.5f, 36.5f, 67.5f, 77.5f,
                                   33.5f, 14.5f, 23.5f, 26.5f, 9.5f});
}

TEST_F(EvalCircleOps, Conv2dMatchesAtenConvOnChannelsFirstData) {
  // x [1, 2, 4, 5] NCHW, w [3, 2, 3, 2] OIHW, stride 2, dilation (1, 2), padding (1, 0).
  const auto xs = ramp(40, 0.37f, 0.1f), ws = ramp(36, 0.73f, -0.2f);
  Value *xc = in("xc", f32({1, 2, 4, 5}, xs));
  Value *wc = in("wc", f32({3, 2, 3, 2}, ws));
  auto want = eval("aten::conv2d.default",
                   {value("input", xc), value("weight", wc), named("stride", Argument::ints({2, 2})),
                    named("padding", Argument::ints({1, 0})), named("dilation", Argument::ints({1, 2}))},
                   DType::Float32, {1, 3, 2, 2});
  Value *xn = in("xn", f32({1, 4, 5, 2}, toNhwc(xs, 1, 2, 4, 5)));
  Value *wn = in("wn", f32({3, 3, 2, 2}, toNhwc(ws, 3, 2, 3, 2)));
  auto got = eval("circle::conv2d.default",
                  {value("input", xn), value("weight", wn), named("stride", Argument::ints({2, 2})),
                   named("padding", Argument::ints({1, 0})), named("dilation", Argument::ints({1, 2}))},
                  DType::Float32, {1, 2, 2, 3});
  EXPECT_EQ(got->sizes, (std::vector<int64_t>{1, 2, 2, 3}));
  expectNear(valuesOf<float>(*got), toNhwc(valuesOf<float>(*want), 1, 3, 2, 2));
}

TEST_F(EvalCircleOps, Conv2dPaddingSameKeepsTheSpatialSize) {
  const auto xs = ramp(18, 0.5f, 0.0f), ws = ramp(9, 0.9f, 0.3f);
  Value *xc = in("xc", f32({1, 1, 3, 6}, xs));
  Value *wc = in("wc", f32({1, 1, 3, 3}, ws));
  auto want = eval("aten::conv2d.padding",
                   {value("input", xc), value("weight", wc), named("padding", Argument::string("same"))},
                   DType::Float32, {1, 1, 3, 6});
  Value *xn = in("xn", f32({1, 3, 6, 1}, xs));
  Value *wn = in("wn", f32({1, 3, 3, 1}, ws));
  auto got = eval("circle::conv2d.padding",
                  {value("input", xn), value("weight", wn), named("padding", Argument::string("same"))},
                  DType::Float32, {1, 3, 6, 1});
  expectNear(valuesOf<float>(*got), valuesOf<float>(*want));
}

// TFLite's SAME, also defined for strides (PyTorch refuses a strided 'same'): x = 1..25 as
// 5x5, a 2x2 kernel of ones, stride 2: ceil(5 / 2) = 3 outputs per axis, total padding
// (3 - 1) * 2 + 2 - 5 = 1, all of it after. Each output sums a 2x2 block, zeros past the edge.
std::vector<float> fiveByFive() {
  std::vector<float> v(25);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(i + 1);
  return v;
}
const std::vector<float> kSameStrideTwoSums = {16, 24, 15, 56, 64, 35, 43, 47, 25};

TEST_F(EvalCircleOps, Conv2dPaddingSameWithStrideIsTflitesSame) {
  Value *x = in("x", f32({1, 5, 5, 1}, fiveByFive()));
  Value *w = in("w", f32({1, 2, 2, 1}, {1, 1, 1, 1}));
  auto got = eval("circle::conv2d.padding",
                  {value("input", x), value("weight", w), named("stride", Argument::ints({2, 2})),
                   named("padding", Argument::string("same"))},
                  DType::Float32, {1, 3, 3, 1});
  expectNear(valuesOf<float>(*got), kSameStrideTwoSums);
}

// circle_custom:: nodes (the original converter's ops) run the kernel of the circle:: op they
// map onto: 'SAME' in upper case, and attributes left None take the original's defaults.
TEST_F(EvalCircleOps, CircleCustomOpsRunTheirCircleCounterpart) {
  Value *x = in("x", f32({1, 5, 5, 1}, fiveByFive()));
  Value *w = in("w", f32({1, 2, 2, 1}, {1, 1, 1, 1}));
  auto conv = eval("circle_custom::conv2d.padding",
                   {value("input_", x), value("weight", w), named("stride", Argument::ints({2, 2})),
                    named("padding", Argument::string("SAME"))},
                   DType::Float32, {1, 3, 3, 1});
  expectNear(valuesOf<float>(*conv), kSameStrideTwoSums);
  // maxpool2d with stride None: the kernel, 2x2 windows over 1..25 (floor mode).
  auto pool = eval("circle_custom::maxpool2d.default",
                   {value("input_", x), named("kernel_size", Argument::ints({2, 2}))}, DType::Float32, {1, 2, 2, 1});
  expectNear(valuesOf<float>(*pool), {7, 9, 17, 19});
}

TEST_F(EvalCircleOps, CircleCustomMxQuantizationIsNotEvaluable) {
  Value *x = in("x", f32({1, 32}, std::vector<float>(32, 1.0f)));
  Node *n = g.createNode(op("circle_custom::mx_fake_quantize.default"),
                         {value("input_", x), named("elem_format", Argument::string("int8")),
                          named("axis", Argument::integer(1))},
                         {tensorOut(DType::Float32, {1, 32})});
  EXPECT_FALSE(evaluator().canEvaluate(*n));
  try {
    evaluator().evaluate(*n, env);
    FAIL() << "an MX quantization op was evaluated";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("MX block quantization (element format 'int8')"), std::string::npos)
        << e.what();
  }
}

TEST_F(EvalCircleOps, DepthwiseConv2dUsesOneFilterGroupPerChannel) {
  // 1x1 kernel, 2 channels, multiplier 2: output channel o reads input channel o / 2.
  Value *x = in("x", f32({1, 1, 2, 2}, {1, 10, 2, 20}));       // pixels (1, 10), (2, 20)
  Value *w = in("w", f32({1, 1, 1, 4}, {1, 2, 3, 4}));         // [1, KH, KW, C*M]
  Value *b = in("b", f32({4}, {0, 0, 0, 0.5f}));
  auto r = eval("circle::depthwise_conv2d.default", {value("input", x), value("weight", w), value("bias", b)},
                DType::Float32, {1, 1, 2, 4});
  expectNear(valuesOf<float>(*r), {1, 2, 30, 40.5f, 2, 4, 60, 80.5f});
}

TEST_F(EvalCircleOps, TransposeConvReadsOhwiWeights) {
  // 1x1 kernel, 2 in and 2 out channels: out[o] = sum_i x[i] * w[o][i] (w is OHWI).
  Value *x = in("x", f32({1, 1, 1, 2}, {1, 10}));
  Value *w = in("w", f32({2, 1, 1, 2}, {1, 2, 3, 4}));
  auto r = eval("circle::transpose_conv.default", {value("input", x), value("weight", w)}, DType::Float32,
                {1, 1, 1, 2});
  expectNear(valuesOf<float>(*r), {21, 43});
}

TEST_F(EvalCircleOps, TransposeConvStrideTwoMatchesAten) {
  const auto xs = ramp(12, 0.41f, 0.0f), ws = ramp(48, 0.29f, 0.1f);
  Value *xc = in("xc", f32({1, 2, 2, 3}, xs));
  Value *wc = in("wc", f32({2, 3, 4, 2}, ws)); // IOHW: 2 in, 3 out, 4x2 kernel
  auto want = eval("aten::conv_transpose2d.input",
                   {value("input", xc), value("weight", wc), named("stride", Argument::ints({2, 2})),
                    named("padding", Argument::ints({1, 0})), named("output_padding", Argument::ints({1, 0}))},
                   DType::Float32, {1, 3, 5, 6});
  // IOHW [2, 3, 4, 2] -> OHWI [3, 4, 2, 2]: w_ohwi[o][h][k][i] = w_iohw[i][o][h][k].
  std::vector<float> ohwi(48);
  for (int o = 0; o < 3; ++o)
    for (int h = 0; h < 4; ++h)
      for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 2; ++i)
          ohwi[static_cast<std::size_t>(((o * 4 + h) * 2 + k) * 2 + i)] =
              ws[static_cast<std::size_t>(((i * 3 + o) * 4 + h) * 2 + k)];
  Value *xn = in("xn", f32({1, 2, 3, 2}, toNhwc(xs, 1, 2, 2, 3)));
  Value *wn = in("wn", f32({3, 4, 2, 2}, ohwi));
  auto got = eval("circle::transpose_conv.default",
                  {value("input", xn), value("weight", wn), named("stride", Argument::ints({2, 2})),
                   named("padding", Argument::ints({1, 0})), named("output_padding", Argument::ints({1, 0}))},
                  DType::Float32, {1, 5, 6, 3});
  EXPECT_EQ(got->sizes, (std::vector<int64_t>{1, 5, 6, 3}));
  expectNear(valuesOf<float>(*got), toNhwc(valuesOf<float>(*want), 1, 3, 5, 6));
}

TEST_F(EvalCircleOps, MaxPool2dPerChannelWithKernelStride) {
  // Channel 0 is 1..9, channel 1 its negation; 2x2 windows, stride 1 ([] = kernel size is 2).
  std::vector<float> x;
  for (int i = 1; i <= 9; ++i) {
    x.push_back(static_cast<float>(i));
    x.push_back(static_cast<float>(-i));
  }
  Value *v = in("x", f32({1, 3, 3, 2}, x));
  auto r = eval("circle::maxpool2d.default",
                {value("input", v), named("kernel_size", Argument::ints({2, 2})), named("stride", Argument::ints({1, 1}))},
                DType::Float32, {1, 2, 2, 2});
  expectNear(valuesOf<float>(*r), {5, -1, 6, -2, 8, -4, 9, -5});
  // An empty stride means the kernel size: one window.
  auto whole = eval("circle::maxpool2d.default", {value("input", v), named("kernel_size", Argument::ints({3, 3}))},
                    DType::Float32, {1, 1, 1, 2});
  expectNear(valuesOf<float>(*whole), {9, -1});
}

TEST_F(EvalCircleOps, AvgPool2dFollowsCountIncludePad) {
  // [[1, 2], [3, 4]], 2x2 windows, stride 1, padding 1: nine windows.
  Value *x = in("x", f32({1, 2, 2, 1}, {1, 2, 3, 4}));
  auto pool = [&](bool include_pad) {
    return valuesOf<float>(*eval("circle::avgpool2d.default",
                                 {value("input", x), named("kernel_size", Argument::ints({2, 2})),
                                  named("stride", Argument::ints({1, 1})), named("padding", Argument::ints({1, 1})),
                                  named("count_include_pad", Argument::boolean(include_pad))},
                                 DType::Float32, {1, 3, 3, 1}));
  };
  // The sums of the windows are 1, 3, 2, 4, 10, 6, 3, 7, 4: divided by 4 with padding counted,
  // by the number of real elements (1, 2, 1, 2, 4, 2, 1, 2, 1) without.
  expectNear(pool(true), {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1});
  expectNear(pool(false), {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

TEST_F(EvalCircleOps, InstanceNormOverSpatialDimsPerChannel) {
  // Two positions, two channels: channel 0 = (1, 3) -> (-1, 1); channel 1 = (2, 6) -> (-1, 1);
  // then weight (2, 1) and bias (0, 10).
  Value *x = in("x", f32({1, 1, 2, 2}, {1, 2, 3, 6}));
  Value *w = in("w", f32({2}, {2, 1}));
  Value *b = in("b", f32({2}, {0, 10}));
  auto r = eval("circle::instance_norm.default",
                {value("input", x), value("weight", w), value("bias", b), named("eps", Argument::real(0))},
                DType::Float32, {1, 1, 2, 2});
  expectNear(valuesOf<float>(*r), {-2, 9, 2, 11});
}

TEST_F(EvalCircleOps, PreluBroadcastsTheSlopeFromTheRight) {
  Value *x = in("x", f32({1, 1, 2, 2}, {-1, -2, 3, -4}));
  Value *w = in("w", f32({2}, {0.1f, 0.5f}));
  auto r = eval("circle::prelu.default", {value("input", x), value("weight", w)}, DType::Float32, {1, 1, 2, 2});
  expectNear(valuesOf<float>(*r), {-0.1f, -1, 3, -2});
}

TEST_F(EvalCircleOps, ResizeNearestNeighborCoordinateConventions) {
  Value *x = in("x", f32({1, 2, 2, 1}, {1, 2, 3, 4}));
  auto resize = [&](std::vector<int64_t> size, bool align_corners, bool half_pixel) {
    Shape shape = {1, size[0], size[1], 1};
    return valuesOf<float>(*eval("circle::resize_nearest_neighbor.default",
                                 {value("input", x), named("size", Argument::ints(size)),
                                  named("align_corners", Argument::boolean(align_corners)),
                                  named("half_pixel_centers", Argument::boolean(half_pixel))},
                                 DType::Float32, shape));
  };
  expectNear(resize({4, 4}, false, false), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // 2 -> 3: floor(i * 2/3) = 0, 0, 1; half-pixel floor((i + 0.5) * 2/3) = 0, 1, 1;
  // align_corners round(i * 1/2) = 0, 1 (half away from zero), 1.
  expectNear(resize({3, 3}, false, false), {1, 1, 2, 1, 1, 2, 3, 3, 4});
  expectNear(resize({3, 3}, false, true), {1, 2, 2, 3, 4, 4, 3, 4, 4});
  expectNear(resize({3, 3}, true, false), {1, 2, 2, 3, 4, 4, 3, 4, 4});
}

TEST_F(EvalCircleOps, ResizeBilinearHalfPixelCenters) {
  // Width 2 -> 4, half-pixel: sources -0.25, 0.25, 0.75, 1.25 (clamped to the edges).
  Value *x = in("x", f32({1, 1, 2, 1}, {0, 10}));
  auto r = eval("circle::resize_bilinear.default",
                {value("input", x), named("size", Argument::ints({1, 4})),
                 named("half_pixel_centers", Argument::boolean(true))},
                DType::Float32, {1, 1, 4, 1});
  expectNear(valuesOf<float>(*r), {0, 2.5f, 7.5f, 10});
}

TEST_F(EvalCircleOps, ShapeIsAnInt32Vector) {
  Value *x = in("x", f32({2, 3, 1}, {0, 0, 0, 0, 0, 0}));
  auto r = eval("circle::shape.default", {value("input", x)}, DType::Int32, {3});
  EXPECT_EQ(r->dtype, DType::Int32);
  EXPECT_EQ(valuesOf<int32_t>(*r), (std::vector<int32_t>{2, 3, 1}));
}

TEST_F(EvalCircleOps, GatherNdReadsFullOrLeadingCoordinates) {
  Value *p = in("p", f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  Value *full = in("full", std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {2, 2}, {2, 1, 0, 0})));
  auto r = eval("circle::gather_nd.default", {value("params", p), value("indices", full)}, DType::Float32, {2});
  expectNear(valuesOf<float>(*r), {6, 1});
  Value *rows = in("rows", i64({2, 1}, {2, 0}));
  auto r2 = eval("circle::gather_nd.default", {value("params", p), value("indices", rows)}, DType::Float32, {2, 2});
  EXPECT_EQ(r2->sizes, (std::vector<int64_t>{2, 2}));
  expectNear(valuesOf<float>(*r2), {5, 6, 1, 2});
}

TEST_F(EvalCircleOps, GatherNdRejectsAnOutOfRangeIndex) {
  Value *p = in("p", f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  Value *bad = in("bad", i64({1, 2}, {3, 0}));
  Node *n = g.createNode(op("circle::gather_nd.default"), {value("params", p), value("indices", bad)},
                         {tensorOut(DType::Float32, {1})});
  try {
    evaluator().evaluate(*n, env);
    FAIL() << "an index of 3 into a dim of 3 was accepted";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("out of range for dim 0 of size 3"), std::string::npos) << e.what();
  }
}

TEST_F(EvalCircleOps, RmsNormWithAndWithoutWeight) {
  // mean(3^2, 4^2) = 12.5; 1 / sqrt(12.5) = 0.28284271.
  Value *x = in("x", f32({1, 2}, {3, 4}));
  Value *w = in("w", f32({2}, {2, 1}));
  auto plain = eval("circle::rms_norm.default", {value("input", x), named("eps", Argument::real(0))}, DType::Float32,
                    {1, 2});
  expectNear(valuesOf<float>(*plain), {0.84852814f, 1.13137085f});
  auto custom = eval("circle_custom::rms_norm.default",
                     {value("hidden_states", x), value("weight", w), named("eps", Argument::real(0))}, DType::Float32,
                     {1, 2});
  expectNear(valuesOf<float>(*custom), {1.69705627f, 1.13137085f});
}

TEST_F(EvalCircleOps, RopeModes) {
  // cos 0, sin 1: the output is the rotation alone.
  Value *x = in("x", f32({1, 1, 1, 4}, {1, 2, 3, 4}));
  Value *sin = in("sin", f32({1, 1, 1, 4}, {1, 1, 1, 1}));
  Value *cos = in("cos", f32({1, 1, 1, 4}, {0, 0, 0, 0}));
  auto rope = [&](int64_t mode) {
    return valuesOf<float>(*eval("circle::rope.default",
                                 {value("input", x), value("sin", sin), value("cos", cos),
                                  named("mode", Argument::integer(mode))},
                                 DType::Float32, {1, 1, 1, 4}));
  };
  expectNear(rope(0), {-3, -4, 1, 2}); // GPT-NeoX: (-x[2:], x[:2])
  expectNear(rope(1), {-2, 1, -4, 3}); // GPT-J: pairs (a, b) -> (-b, a)
}

class EvalCircleAttention : public EvalCircleOps {
protected:
  // One token, hidden 2, one head of size 2; cos 1 and sin 0 leave q and k unrotated. The
  // schema makes every operand a tensor, so the mask and the cache are always given.
  std::vector<NamedArg> operands(Value *wq, Value *wv, Value *mask, Value *past_key, Value *past_value,
                                 Value *positions) {
    Value *x = in("x", f32({1, 1, 2}, {1, 1}));
    Value *wk = in("wk", f32({2, 2}, {1, 0, 0, 1}));
    Value *wo = in("wo", f32({2, 2}, {1, 0, 0, 2}));
    Value *cos = in("cos", f32({1, 1, 2}, {1, 1}));
    Value *sin = in("sin", f32({1, 1, 2}, {0, 0}));
    return {value("hidden_states", x),      value("wq", wq),          value("wk", wk),
            value("wv", wv),                value("wo", wo),          value("position_cos", cos),
            value("position_sin", sin),     value("attention_mask", mask), value("past_key", past_key),
            value("past_value", past_value), value("cache_position", positions)};
  }
};

TEST_F(EvalCircleAttention, SingleTokenAttendsToItself) {
  // The mask's last dim 1 makes L = 1: the token's own key. Softmax over one key is 1, so
  // out = (x wv^T) wo^T = (3, 7) * (1, 2); the old cache row is overwritten.
  Value *wq = in("wq", f32({2, 2}, {0.3f, -0.2f, 0.5f, 0.1f}));
  Value *wv = in("wv", f32({2, 2}, {1, 2, 3, 4}));
  Value *mask = in("mask", f32({1, 1, 1, 1}, {-5}));
  Value *past_key = in("pk", f32({1, 2, 1, 2}, {9, 9, 9, 9}));
  Value *past_value = in("pv", f32({1, 2, 1, 2}, {100, 100, 100, 100}));
  Value *positions = in("pos", i64({1}, {0}));
  auto r = eval("circle::attention.default", operands(wq, wv, mask, past_key, past_value, positions),
                DType::Float32, {1, 1, 2});
  expectNear(valuesOf<float>(*r), {3, 14});
}

TEST_F(EvalCircleAttention, CacheRowsAreReadAndTheNewTokenWritten) {
  // q = 0 and a zero mask over L = 3 rows: uniform weights. Rows 0 and 1 come from the cache,
  // row 2 (the token's cache_position) is the new value x wv^T = (1, 1), row 3 is not attended:
  // the mean (4/3, 4/3) times wo = diag(1, 2).
  Value *wq = in("wq", f32({2, 2}, {0, 0, 0, 0}));
  Value *wv = in("wv", f32({2, 2}, {1, 0, 0, 1}));
  Value *mask = in("mask", f32({1, 1, 1, 3}, {0, 0, 0}));
  Value *past_key = in("pk", f32({1, 4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
  Value *past_value = in("pv", f32({1, 4, 1, 2}, {3, 0, 0, 3, 100, 100, 100, 100}));
  Value *positions = in("pos", i64({1}, {2}));
  auto r = eval("circle_custom::attention.default", operands(wq, wv, mask, past_key, past_value, positions),
                DType::Float32, {1, 1, 2});
  expectNear(valuesOf<float>(*r), {4.0f / 3, 8.0f / 3});
}

TEST_F(EvalCircleOps, UnknownCircleOpIsNamedInTheError) {
  Value *x = in("x", f32({1}, {1}));
  Node *n = g.createNode(op("circle::frobnicate.default"), {Argument::value(x)}, DType::Float32, {1});
  EXPECT_FALSE(evaluator().canEvaluate(*n));
  try {
    evaluator().evaluate(*n, env);
    FAIL() << "an unknown circle op was evaluated";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("circle::frobnicate.default"), std::string::npos) << e.what();
  }
}

TEST_F(EvalCircleOps, InPlaceDetachIsTheIdentity) {
  auto data = f32({2}, {1.5f, -2});
  Value *x = in("x", data);
  Node *n = g.createNode(op("aten::detach_.default"), {Argument::value(x)}, DType::Float32, {2});
  ASSERT_TRUE(evaluator().canEvaluate(*n));
  std::vector<EvalValue> out = evaluator().evaluate(*n, env);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor, data); // the input itself, as the in-place op returns it
}

TEST_F(EvalCircleOps, SymIntTensorOperandIsAWrappedNumber) {
  // x * s with s = 3: a float tensor stays float32 and an int32 tensor stays int32, as eager
  // PyTorch treats the Python int.
  Value *s = g.addSymInput("s", ValueKind::SymInt, "s0", 3);
  env[s] = {nullptr, 3.0};
  Value *xf = in("xf", f32({2}, {0.5f, -1}));
  auto rf = eval("aten::mul.Tensor", {value("self", xf), value("other", s)}, DType::Float32, {2});
  EXPECT_EQ(rf->dtype, DType::Float32);
  expectNear(valuesOf<float>(*rf), {1.5f, -3});
  Value *xi = in("xi", std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {2}, {2, -4})));
  auto ri = eval("aten::mul.Tensor", {value("self", xi), value("other", s)}, DType::Int32, {2});
  EXPECT_EQ(ri->dtype, DType::Int32);
  EXPECT_EQ(valuesOf<int32_t>(*ri), (std::vector<int32_t>{6, -12}));
}

TEST_F(EvalCircleOps, RankZeroConstantInAScalarSlot) {
  // cast-mixed-type-args (relaxed stage) turns ne.Scalar(x, 2) into ne.Scalar(x, <i32[] 2>).
  Value *x = in("x", std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {3}, {1, 2, 3})));
  Value *two = in("two", std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {}, {2})));
  auto r = eval("aten::ne.Scalar", {value("self", x), value("other", two)}, DType::Bool, {3});
  EXPECT_EQ(r->dtype, DType::Bool);
  EXPECT_EQ(valuesOf<uint8_t>(*r), (std::vector<uint8_t>{1, 0, 1}));
}

TEST_F(EvalCircleOps, ManyElementTensorInAScalarSlotIsAClearError) {
  Value *x = in("x", f32({2}, {1, 2}));
  Value *pair = in("pair", f32({2}, {1, 2}));
  Node *n = g.createNode(op("aten::ne.Scalar"), {value("self", x), value("other", pair)}, {tensorOut(DType::Bool, {2})});
  try {
    evaluator().evaluate(*n, env);
    FAIL() << "a two-element tensor was taken as a Scalar";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("takes a scalar, but 'pair' has 2 elements"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tico
