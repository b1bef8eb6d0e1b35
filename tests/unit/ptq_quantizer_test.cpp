// The ptq quantizer end to end on small graphs (plugins/quant-ptq): placement, calibration
// through the host's runner with the aten evaluator, and what convert() writes; overrides and
// their strict check; weights GPTQ already quantized are left alone.
#include "config.h"
#include "eval_test_support.h"
#include "placement.h"
#include "ptq_quantizer.h"
#include "pt2/torch_op_table.h"
#include "quant/calibration_runner.h"
#include "tico/ops/torch_ops.h"
#include "tico/support/error.h"
#include "calibration_test_support.h"
#include "error_text.h"

#include <gtest/gtest.h>

namespace tico::ptq {
namespace {

using namespace evaltest;
namespace qd = tico::ops::quantized_decomposed;
namespace aten = tico::ops::aten;

using testing_support::VectorSource;

using testing_support::errorOf;

PtqConfig configOf(std::map<std::string, OptionValue> given) {
  return PtqConfig::fromOptions(Options::resolve("quantizer 'ptq'", optionSpecs(), given));
}

std::vector<const Node *> nodesOf(const Graph &g, const OpRef &op) {
  std::vector<const Node *> out;
  for (const auto &n : g.nodes())
    if (n->opId() == op)
      out.push_back(n.get());
  return out;
}

class PtqQuantizerTest : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }

  // out = fc2(mid(fc(x))) with x: f32[4, 3]; `mid` is relu or exp.
  void build(const char *mid = "aten::relu.default", bool gptq_fc = false) {
    Value *x = g.addInput(InputKind::User, "x", DType::Float32, {4, 3});
    Value *w = g.addInput(InputKind::Parameter, "w", DType::Float32, {2, 3}, "fc.weight",
                          f32({2, 3}, {0.5f, -1.0f, 0.25f, 2.0f, 0.0f, -0.75f}));
    Value *b = g.addInput(InputKind::Parameter, "b", DType::Float32, {2}, "fc.bias", f32({2}, {0.1f, -0.2f}));
    Value *w2 = g.addInput(InputKind::Parameter, "w2", DType::Float32, {2, 2}, "fc2.weight",
                           f32({2, 2}, {1.0f, -0.5f, 0.3f, 0.9f}));
    Value *weight = w;
    if (gptq_fc) {
      // What GPTQ writes: integer codes -> dequantize_per_channel -> the layer.
      Value *codes = g.addConstant("w_codes", std::make_shared<TensorData>(TensorData::fromVector(
                                                   DType::UInt8, {2, 3}, std::vector<uint8_t>{1, 2, 3, 4, 5, 6})));
      Value *scales = g.addConstant("w_scales", f32({2}, {0.1f, 0.2f}));
      Value *zps = g.addConstant("w_zps", i64({2}, {3, 3}));
      Node *dq = g.createNode(op("quantized_decomposed::dequantize_per_channel.default"),
                              {Argument::value(codes), Argument::value(scales), Argument::value(zps), Argument::integer(0),
                               Argument::integer(0), Argument::integer(255), Argument::scalarType(DType::UInt8)},
                              DType::Float32, {2, 3}, nullptr, "w_dq");
      weight = dq->output();
    }
    Node *fc = g.createNode(op("aten::linear.default"), {Argument::value(x), Argument::value(weight), Argument::value(b)},
                            DType::Float32, {4, 2}, nullptr, "fc");
    Node *m = g.createNode(op(mid), {Argument::value(fc->output())}, DType::Float32, {4, 2}, nullptr, "act");
    Node *fc2 = g.createNode(op("aten::linear.default"), {Argument::value(m->output()), Argument::value(w2)},
                             DType::Float32, {4, 2}, nullptr, "fc2");
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(fc2->output()), ""});
    g.verify();
  }

  static std::vector<CalibrationBatch> batches() {
    std::vector<CalibrationBatch> out;
    for (int b = 0; b < 3; ++b) {
      std::vector<float> v(12);
      for (int i = 0; i < 12; ++i)
        v[i] = static_cast<float>((i * 7 + b * 5) % 11) * 0.3f - 1.2f - 0.1f * static_cast<float>(b);
      out.push_back({f32({4, 3}, v)});
    }
    return out;
  }

  bool run(PtqQuantizer &q) {
    VectorSource source(batches());
    CalibrationPlan plan;
    QuantizeContext context(atenEval()->registry, source.size());
    q.prepare(g, plan, context);
    if (!plan.empty()) {
      quant::CalibrationRunOptions options;
      options.label = "quantizer 'ptq'";
      quant::runCalibration(g, *atenEval()->evaluator, source, plan, q, context, options);
    }
    const bool changed = q.convert(g, context);
    g.verify();
    return changed;
  }

  // The (scale, zero point) of the quantize node reading value `name`.
  std::pair<double, int64_t> activationParams(const std::string &name) {
    for (const Node *n : nodesOf(g, qd::quantize_per_tensor_default))
      if (n->input(0)->name() == name)
        return {n->arg(1).asDouble(), n->arg(2).asInt()};
    ADD_FAILURE() << "no quantize of '" << name << "'";
    return {0, 0};
  }

  Graph g{&tico::pt2::torchOpSchemas()};
};

TEST_F(PtqQuantizerTest, DefaultsQuantizeEveryActivationOnceAndWeightsPerChannel) {
  build();
  PtqQuantizer q(configOf({}));
  EXPECT_TRUE(run(q));
  EXPECT_EQ(q.observedNames(), (std::vector<std::string>{"x", "fc", "act", "fc2"}));
  EXPECT_EQ(nodesOf(g, qd::quantize_per_tensor_default).size(), 4u);
  EXPECT_EQ(nodesOf(g, qd::dequantize_per_tensor_default).size(), 4u);
  ASSERT_EQ(nodesOf(g, qd::dequantize_per_channel_default).size(), 2u);
  // The input's parameters come from its min/max over all three batches.
  float lo = 1e9f, hi = -1e9f;
  for (const CalibrationBatch &b : batches())
    for (float v : valuesOf(*b[0])) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  const AffineParams expected = computeQParams({lo, hi}, parseGrid("uint8", "auto", "t"), true);
  const auto [scale, zp] = activationParams("x");
  EXPECT_EQ(static_cast<float>(scale), expected.scale);
  EXPECT_EQ(zp, expected.zero_point);
  // fc reads its weight through dequantize_per_channel of uint8 codes along axis 0.
  const Node *fc = g.findNode("fc");
  const Node *dq = fc->input("weight")->producer();
  ASSERT_NE(dq, nullptr);
  EXPECT_EQ(dq->opId(), qd::dequantize_per_channel_default);
  EXPECT_EQ(dq->input(0)->dtype(), DType::UInt8);
  EXPECT_EQ(dq->arg(3).asInt(), 0);
  // Row 0 of the weight is [0.5, -1, 0.25]: scale 1.5/255, zero point round(1 / scale) = 170.
  const std::vector<float> scales = valuesOf(*dq->input(1)->constant());
  EXPECT_EQ(scales[0], 1.5f / 255.0f);
  EXPECT_EQ(valuesOf<int64_t>(*dq->input(2)->constant())[0], 170);
  // A second run finds everything quantized and asks for no calibration.
  CalibrationPlan plan;
  QuantizeContext context(atenEval()->registry, 0);
  PtqQuantizer again(configOf({}));
  again.prepare(g, plan, context);
  EXPECT_TRUE(plan.empty());
  EXPECT_FALSE(again.convert(g, context));
}

TEST_F(PtqQuantizerTest, FloatOnlyOpsKeepTheirNeighboursFloatUnlessAsked) {
  build("aten::exp.default");
  PtqQuantizer avoid(configOf({}));
  run(avoid);
  // fc's result is read by exp (no integer kernel): fc stays float with a quantized weight;
  // exp's result feeds fc2, which is quantized (its input is quantized after exp).
  EXPECT_EQ(avoid.observedNames(), (std::vector<std::string>{"act", "fc2"}));
  EXPECT_EQ(nodesOf(g, qd::dequantize_per_channel_default).size(), 2u);
  const Node *fc = g.findNode("fc");
  ASSERT_EQ(fc->output()->users().size(), 1u);
  EXPECT_EQ(fc->output()->users()[0]->name(), "act"); // exp reads fc's float result directly
  EXPECT_NE(fc->input(0)->name(), "x_dq");             // and fc reads the float input
}

TEST_F(PtqQuantizerTest, NegIsQuantizedLikeTheOtherIntegerOps) {
  // rotate_half's neg has an integer kernel: with float_islands=avoid nothing stays float.
  build("aten::neg.default");
  PtqQuantizer q(configOf({}));
  run(q);
  EXPECT_EQ(q.observedNames(), (std::vector<std::string>{"x", "fc", "act", "fc2"}));
}

TEST(PtqPlacementTest, TransposedConvolutionWeightsArePerOutputChannel) {
  // circle::transpose_conv holds an OHWI weight: its output channels are axis 0, and the op
  // takes one activation like the other convolutions.
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = g.addInput(InputKind::User, "x", DType::Float32, {1, 3, 3, 2});
  Value *w = g.addInput(InputKind::Parameter, "w", DType::Float32, {4, 2, 2, 2}, "up.weight",
                        f32({4, 2, 2, 2}, std::vector<float>(32, 0.5f)));
  Node *t = g.createNode(op("circle::transpose_conv.default"), {Argument::value(x), Argument::value(w)}, DType::Float32,
                         {1, 4, 4, 4}, nullptr, "up");
  const auto site = weightOf(*t);
  ASSERT_TRUE(site.has_value());
  EXPECT_EQ(site->arg, "weight");
  EXPECT_EQ(site->channel_axis, 0);
  const auto inputs = activationInputs(*t);
  ASSERT_TRUE(inputs.has_value());
  EXPECT_EQ(*inputs, (std::vector<const Value *>{x}));
}

TEST_F(PtqQuantizerTest, KeepModeQuantizesAroundFloatOps) {
  build("aten::exp.default");
  PtqQuantizer keep(configOf({{"float_islands", std::string("keep")}}));
  run(keep);
  EXPECT_EQ(keep.observedNames(), (std::vector<std::string>{"x", "fc", "act", "fc2"}));
}

TEST_F(PtqQuantizerTest, WeightsGptqQuantizedAreLeftAlone) {
  build("aten::relu.default", /*gptq_fc=*/true);
  PtqQuantizer q(configOf({}));
  run(q);
  const Node *fc = g.findNode("fc");
  EXPECT_EQ(fc->input("weight")->producer()->name(), "w_dq"); // GPTQ's dequantize, untouched
  EXPECT_EQ(nodesOf(g, qd::dequantize_per_channel_default).size(), 2u); // GPTQ's and fc2's
  EXPECT_EQ(q.observedNames(), (std::vector<std::string>{"x", "fc", "act", "fc2"}));
}

TEST_F(PtqQuantizerTest, OverridesByNameAndOpAndStrictCheck) {
  build();
  EXPECT_EQ(NodeConfigs::namesOf(g, *g.findNode("fc")),
            (std::vector<std::string>{"fc", "w", "fc.weight", "fc", "b", "fc.bias", "fc"}));
  // int8 weights everywhere, then fc2 back to uint4; int16 activations.
  PtqQuantizer q(configOf({{"activations", std::string("int16")},
                           {"overrides", std::vector<std::string>{"aten::linear:weight=int8", "fc2.weight:weight=uint4"}}}));
  run(q);
  const Node *dq_fc = g.findNode("fc")->input("weight")->producer();
  const Node *dq_fc2 = g.findNode("fc2")->input("weight")->producer();
  EXPECT_EQ(dq_fc->input(0)->dtype(), DType::Int8);
  EXPECT_EQ(valuesOf<int64_t>(*dq_fc->input(2)->constant()), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(dq_fc2->input(0)->dtype(), DType::UInt8);
  EXPECT_EQ(dq_fc2->arg(5).asInt(), 15); // the uint4 range in uint8 storage
  const auto [scale, zp] = activationParams("x");
  EXPECT_EQ(zp, 0); // int16 is symmetric
  EXPECT_GT(scale, 0.0);
  for (const Node *n : nodesOf(g, qd::quantize_per_tensor_default))
    EXPECT_EQ(n->output()->dtype(), DType::Int16);

  PtqQuantizer strict(configOf({{"overrides", std::vector<std::string>{"*lm_head*:weight=uint8", "fc:skip"}}}));
  CalibrationPlan plan;
  QuantizeContext context(atenEval()->registry, 0);
  const std::string message = errorOf([&] { strict.prepare(g, plan, context); });
  EXPECT_NE(message.find("1 override(s) match no node"), std::string::npos) << message;
  EXPECT_NE(message.find("'*lm_head*:weight=uint8'"), std::string::npos) << message;
}

TEST_F(PtqQuantizerTest, SkippedConsumerKeepsItsProducersFloat) {
  build();
  PtqQuantizer q(configOf({{"overrides", std::vector<std::string>{"fc2:skip"}}}));
  run(q);
  // fc2 stays float, so relu's result has a float reader, so relu and then fc stay float too.
  EXPECT_TRUE(q.observedNames().empty());
  EXPECT_EQ(g.findNode("fc2")->input("weight")->name(), "w2");
  EXPECT_EQ(nodesOf(g, qd::dequantize_per_channel_default).size(), 1u); // fc keeps a quantized weight
}

TEST(PtqConfigTest, OverrideSyntax) {
  Override o = parseOverride("aten::embedding:weight=uint8");
  EXPECT_TRUE(o.op_selector);
  EXPECT_EQ(o.selector, "aten::embedding");
  ASSERT_EQ(o.settings.size(), 1u);
  EXPECT_EQ(o.settings[0], (std::pair<std::string, std::string>{"weight", "uint8"}));
  o = parseOverride("*.norm*:skip");
  EXPECT_FALSE(o.op_selector);
  EXPECT_EQ(o.settings[0].first, "skip");
  o = parseOverride("*lm_head*: weight=uint8, granularity=per-tensor, weight_estimator=mse");
  EXPECT_EQ(o.settings.size(), 3u);
  EXPECT_NE(errorOf([] { parseOverride("no-colon"); }).find("expected SELECTOR:SETTING"), std::string::npos);
  EXPECT_NE(errorOf([] { parseOverride("x:colour=red"); }).find("unknown setting 'colour'"), std::string::npos);
  EXPECT_NE(errorOf([] { parseOverride("x:estimator=kl"); }).find("unknown range estimator 'kl'"), std::string::npos);
  EXPECT_NE(errorOf([] { parseOverride("x:block_size=0"); }).find("not a positive integer"), std::string::npos);
  EXPECT_NE(errorOf([] { configOf({{"overrides", std::vector<std::string>{"x:weight=uint8"}},
                                   {"weight_scheme", std::string("symmetric")}}); })
                .find("cannot be symmetric"),
            std::string::npos);
  EXPECT_TRUE(globMatch("*lm_head*", "model.lm_head.weight"));
  EXPECT_TRUE(globMatch("fc?", "fc2"));
  EXPECT_FALSE(globMatch("fc?", "fc"));
  EXPECT_TRUE(globMatch("*.norm*", "layers.0.norm.weight"));
  EXPECT_FALSE(globMatch("*.norm*", "normal"));
}

TEST(PtqConfigTest, NumericOptionsAreBoundedWithTheKeyAndTheRange) {
  // candidates 2^31-1 made the mse estimator run for hours (tracker issue 31).
  EXPECT_EQ(errorOf([] { configOf({{"candidates", int64_t{2147483647}}}); }),
            "quantizer 'ptq': option 'candidates' is 2147483647; allowed 1 to 10000");
  EXPECT_EQ(errorOf([] { configOf({{"candidates", int64_t{0}}}); }),
            "quantizer 'ptq': option 'candidates' is 0; allowed 1 to 10000");
  EXPECT_NE(errorOf([] { configOf({{"max_samples", int64_t{1} << 40}}); })
                .find("option 'max_samples' is 1099511627776; allowed 1 to 67108864"),
            std::string::npos);
  EXPECT_NE(errorOf([] { configOf({{"samples_per_batch", int64_t{-1}}}); }).find("option 'samples_per_batch' is -1"),
            std::string::npos);
  EXPECT_EQ(configOf({{"candidates", int64_t{10000}}}).candidates, 10000);
}

TEST_F(PtqQuantizerTest, PerBlockWeightsAreCodesThroughGroupTablesAndTheOpStaysFloat) {
  build();
  // fc's [2, 3] weight in one block of 3 columns per row: the same grids as per channel, written
  // as codes (dequantized with scale 1) shifted and scaled by [2, 1, 1] tables.
  PtqQuantizer q(configOf({{"overrides", std::vector<std::string>{"fc:granularity=per-block,block_size=3"}}}));
  ASSERT_TRUE(run(q));
  const Node *fc = nodesOf(g, aten::linear_default).at(0);
  const Node *back = fc->input(1)->producer();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->opId(), aten::reshape_default);
  const Node *scaled = back->input(0)->producer();
  ASSERT_EQ(scaled->opId(), aten::mul_Tensor);
  const std::vector<float> scales = valuesOf(*scaled->input(1)->constant());
  ASSERT_EQ(scales.size(), 2u);
  EXPECT_EQ(scales[0], 1.5f / 255.0f); // row 0 [0.5, -1, 0.25], as per channel
  const Node *centred = scaled->input(0)->producer();
  ASSERT_EQ(centred->opId(), aten::sub_Tensor);
  EXPECT_EQ(valuesOf(*centred->input(1)->constant())[0], 170.0f);
  // fc reads a weight computed at run time: it stays a float op, its input is not quantized.
  for (const Node *n : nodesOf(g, qd::quantize_per_tensor_default))
    EXPECT_NE(n->input(0)->name(), "x") << "fc's input was quantized";
  // fc2 keeps its per-channel uint8 weight and stays quantized.
  EXPECT_EQ(nodesOf(g, qd::dequantize_per_channel_default).size(), 1u);
}

TEST_F(PtqQuantizerTest, PerBlockSizeMustDivideTheColumnsAndIsRefusedBeforeCalibration) {
  build();
  PtqQuantizer q(configOf({{"granularity", std::string("per-block")}, {"block_size", int64_t{3}}}));
  CalibrationPlan plan;
  QuantizeContext context(atenEval()->registry, 0);
  const std::string message = errorOf([&] { q.prepare(g, plan, context); });
  // fc2's [2, 2] weight cannot be cut into blocks of 3 columns.
  EXPECT_NE(message.find("weight of node 'fc2': block_size 3 does not divide the 2 input columns"), std::string::npos)
      << message;
}

} // namespace
} // namespace tico::ptq
