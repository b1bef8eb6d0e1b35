// SmoothQuant (plugins/quant-smoothquant): which activations it can smooth, the scales it moves
// (s_j = max|X_j|^alpha / max|W_:j|^(1-alpha)), the alpha search, and that the float function is
// unchanged by the rewrite.
#include "smoothquant.h"

#include "calibration_test_support.h"
#include "eval_test_support.h"
#include "pt2/torch_op_table.h"
#include "quant/calibration_runner.h"
#include "tico/eval/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tico::smoothquant {
namespace {

using namespace evaltest;
using testing_support::VectorSource;

Settings settingsOf(std::map<std::string, OptionValue> given) {
  return Settings::from(Options::resolve("quantizer 'smoothquant'", Settings::specs(), given));
}

class SmoothQuantTest : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }

  // q = linear(x * gamma, Wq), k = linear(x * gamma, Wk, bk); x: f32[6, 4]. `extra_reader` adds a
  // relu of the scaled activation as a third output (then nothing can be smoothed).
  void build(bool extra_reader = false) {
    Value *x = g.addInput(InputKind::User, "x", DType::Float32, {6, 4});
    Value *gamma = g.addInput(InputKind::Parameter, "gamma", DType::Float32, {4}, "norm.weight",
                              f32({4}, {1.5f, 0.5f, 2.0f, 1.0f}));
    Value *wq = g.addInput(InputKind::Parameter, "wq", DType::Float32, {3, 4}, "q.weight",
                           f32({3, 4}, {0.2f, -0.4f, 0.05f, 0.3f, -0.1f, 0.25f, -0.02f, 0.4f, 0.3f, 0.1f, 0.04f, -0.2f}));
    Value *wk = g.addInput(InputKind::Parameter, "wk", DType::Float32, {2, 4}, "k.weight",
                           f32({2, 4}, {0.5f, 0.1f, -0.03f, -0.3f, -0.2f, 0.35f, 0.06f, 0.1f}));
    Value *bk = g.addInput(InputKind::Parameter, "bk", DType::Float32, {2}, "k.bias", f32({2}, {0.1f, -0.1f}));
    Node *mul = g.createNode(op("aten::mul.Tensor"), {Argument::value(x), Argument::value(gamma)}, DType::Float32,
                             {6, 4}, nullptr, "norm_mul");
    Node *q = g.createNode(op("aten::linear.default"), {Argument::value(mul->output()), Argument::value(wq)},
                           DType::Float32, {6, 3}, nullptr, "q");
    Node *k = g.createNode(op("aten::linear.default"),
                           {Argument::value(mul->output()), Argument::value(wk), Argument::value(bk)}, DType::Float32,
                           {6, 2}, nullptr, "k");
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(q->output()), ""});
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(k->output()), ""});
    if (extra_reader) {
      Node *relu = g.createNode(op("aten::relu.default"), {Argument::value(mul->output())}, DType::Float32, {6, 4},
                                nullptr, "side");
      g.addOutput(GraphOutput{OutputKind::User, Argument::value(relu->output()), ""});
    }
    g.verify();
  }

  // Channel 2 is an outlier channel (values ~40x the others), as in LLM activations.
  static std::vector<CalibrationBatch> batches() {
    std::vector<CalibrationBatch> out;
    for (int b = 0; b < 4; ++b) {
      std::vector<float> v(24);
      for (int i = 0; i < 24; ++i) {
        const float base = static_cast<float>((i * 5 + b * 3) % 7) * 0.3f - 0.9f;
        v[i] = i % 4 == 2 ? base * 40.0f : base;
      }
      out.push_back({f32({6, 4}, v)});
    }
    return out;
  }

  QuantizeContext run(SmoothQuant &q) {
    VectorSource source(batches());
    CalibrationPlan plan;
    QuantizeContext context(atenEval()->registry, source.size());
    q.prepare(g, plan, context);
    if (!plan.empty()) {
      quant::CalibrationRunOptions options;
      options.label = "quantizer 'smoothquant'";
      quant::runCalibration(g, *atenEval()->evaluator, source, plan, q, context, options);
    }
    q.convert(g, context);
    g.verify();
    return context;
  }

  std::vector<std::vector<float>> outputs() {
    std::vector<std::vector<float>> out;
    for (const EvalValue &v : runGraph(g, *atenEval()->evaluator, batches()[1]))
      out.push_back(valuesOf(*v.tensor));
    return out;
  }

  static double metric(const QuantizeContext &context, const std::string &name) {
    for (const QuantizerMetric &m : context.metrics())
      if (m.metric == name)
        return m.value;
    ADD_FAILURE() << "no metric " << name;
    return 0;
  }

  std::vector<float> constantRead(const std::string &node, std::size_t input) {
    return valuesOf(*g.findNode(node)->input(input)->constant());
  }

  Graph g{&tico::pt2::torchOpSchemas()};
};

TEST_F(SmoothQuantTest, FindsTheNormAndTheLinearsReadingIt) {
  build();
  std::vector<std::string> skipped;
  const std::vector<SmoothingGroup> groups = findSmoothingGroups(g, skipped);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].producer->name(), "norm_mul");
  EXPECT_EQ(groups[0].scale_args, std::vector<std::string>{"other"});
  ASSERT_EQ(groups[0].linears.size(), 2u);
  EXPECT_EQ(groups[0].channels, 4);
  EXPECT_TRUE(skipped.empty());
}

TEST_F(SmoothQuantTest, ActivationWithAnotherReaderIsLeftAloneWithAReason) {
  build(/*extra_reader=*/true);
  std::vector<std::string> skipped;
  EXPECT_TRUE(findSmoothingGroups(g, skipped).empty());
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("also read by operators other than"), std::string::npos) << skipped[0];
}

TEST_F(SmoothQuantTest, FixedAlphaMovesTheFormulasScalesAndKeepsTheFunction) {
  build();
  const auto before = outputs();
  SmoothQuant q(settingsOf({{"alpha_search", false}, {"alpha", 0.5}}));
  const QuantizeContext context = run(q);
  EXPECT_DOUBLE_EQ(metric(context, "smoothquant_alpha"), 0.5);
  // max |X_j| over the calibration batches (x * gamma) and max |W_:j| over q and k.
  const std::vector<float> gamma{1.5f, 0.5f, 2.0f, 1.0f};
  const std::vector<float> wmax{0.5f, 0.4f, 0.06f, 0.4f};
  float xmax[4] = {0, 0, 0, 0};
  for (const CalibrationBatch &b : batches()) {
    const std::vector<float> v = valuesOf(*b[0]);
    for (std::size_t i = 0; i < v.size(); ++i)
      xmax[i % 4] = std::max(xmax[i % 4], std::fabs(v[i] * gamma[i % 4]));
  }
  const std::vector<float> new_gamma = constantRead("norm_mul", 1);
  const std::vector<float> new_wq = constantRead("q", 1);
  for (int j = 0; j < 4; ++j) {
    const float s = std::sqrt(xmax[j]) / std::sqrt(wmax[j]);
    EXPECT_NEAR(new_gamma[j], gamma[j] / s, 1e-5f * gamma[j] / s) << j;
    const float wq_row0[4] = {0.2f, -0.4f, 0.05f, 0.3f};
    EXPECT_NEAR(new_wq[j], wq_row0[j] * s, 1e-5f * s) << j;
  }
  const auto after = outputs();
  for (std::size_t o = 0; o < before.size(); ++o)
    for (std::size_t i = 0; i < before[o].size(); ++i)
      EXPECT_NEAR(after[o][i], before[o][i], 1e-5f * (1.0f + std::fabs(before[o][i]))) << o << "," << i;
}

TEST_F(SmoothQuantTest, AlphaSearchSmoothsAnOutlierChannelAndPredictsLessError) {
  build();
  const auto before = outputs();
  SmoothQuant q(settingsOf({}));
  const QuantizeContext context = run(q);
  const double alpha = metric(context, "smoothquant_alpha");
  EXPECT_GT(alpha, 0.0);  // an outlier channel 40x the others: smoothing pays off
  EXPECT_LT(metric(context, "smoothquant_predicted_error"), metric(context, "smoothquant_predicted_error_unsmoothed"));
  const auto after = outputs();
  for (std::size_t o = 0; o < before.size(); ++o)
    for (std::size_t i = 0; i < before[o].size(); ++i)
      EXPECT_NEAR(after[o][i], before[o][i], 1e-5f * (1.0f + std::fabs(before[o][i]))) << o << "," << i;
}

TEST(SmoothQuantSettings, OptionsAreChecked) {
  EXPECT_THROW(settingsOf({{"alpha", 1.5}}), Error);
  EXPECT_THROW(settingsOf({{"alpha_step", 0.0}}), Error);
  EXPECT_THROW(settingsOf({{"activation_bits", int64_t{4}}}), Error);
  EXPECT_THROW(settingsOf({{"weight_bits", int64_t{2}}}), Error);
}

} // namespace
} // namespace tico::smoothquant
