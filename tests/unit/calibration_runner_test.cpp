// The layer-wise calibration runner (core/src/quant/calibration_runner.cpp) with the aten
// evaluator: node-major order over batches, layer() before a layer runs and its replacement
// weights reaching later layers, the memory budget with offload to disk, and the errors.
#include "eval_test_support.h"
#include "pt2/torch_op_table.h"
#include "quant/calibration_runner.h"
#include "tico/support/error.h"
#include "calibration_test_support.h"
#include "error_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tico {
namespace {

using namespace evaltest;

using testing_support::errorOf;

using testing_support::VectorSource;

struct Seen {
  std::string value;
  std::size_t batch;
  std::vector<float> data;
};

// Observes what the test asks for, records every call, and optionally replaces the weight of
// the layer it is given.
class RecordingQuantizer : public Quantizer {
public:
  std::vector<std::string> observe_names;
  std::string layer_name;
  std::shared_ptr<const TensorData> replacement; // for the layer's weight (input 1)
  std::vector<Seen> seen;
  std::vector<std::string> events;

  void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &) override {
    for (const Value *v : graph.userInputs())
      if (std::find(observe_names.begin(), observe_names.end(), v->name()) != observe_names.end())
        plan.observe(*v);
    for (const auto &node : graph.nodes()) {
      for (std::size_t i = 0; i < node->numOutputs(); ++i)
        if (std::find(observe_names.begin(), observe_names.end(), node->output(i)->name()) != observe_names.end())
          plan.observe(*node->output(i));
      if (node->name() == layer_name)
        plan.layer(*node);
    }
  }
  void observe(const Observation &o) override {
    seen.push_back({o.value.name(), o.batch, valuesOf(o.data)});
    events.push_back("observe " + o.value.name() + " " + std::to_string(o.batch));
  }
  std::vector<ConstantOverride> layer(const Node &node, QuantizeContext &) override {
    events.push_back("layer " + node.name());
    if (!replacement)
      return {};
    return {{node.input(1), replacement}};
  }
  bool convert(Graph &, QuantizeContext &) override { return false; }
};

class CalibrationRunnerTest : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }

  // relu_out = relu(fc = linear(x, W, b)); fc2 = linear(relu_out, W2) with x: f32[2, 4].
  void build() {
    Value *x = g.addInput(InputKind::User, "x", DType::Float32, {2, 4});
    Value *w = g.addInput(InputKind::Parameter, "w", DType::Float32, {4, 4}, "fc.weight",
                          f32({4, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
    Value *b = g.addInput(InputKind::Parameter, "b", DType::Float32, {4}, "fc.bias", f32({4}, {0.5f, 0, 0, 0}));
    Value *w2 = g.addInput(InputKind::Parameter, "w2", DType::Float32, {2, 4}, "fc2.weight",
                           f32({2, 4}, {1, 1, 1, 1, 1, -1, 1, -1}));
    Node *lin = g.createNode(op("aten::linear.default"), {Argument::value(x), Argument::value(w), Argument::value(b)},
                             DType::Float32, {2, 4}, nullptr, "fc");
    Node *relu = g.createNode(op("aten::relu.default"), {Argument::value(lin->output())}, DType::Float32, {2, 4},
                              nullptr, "relu_out");
    Node *lin2 = g.createNode(op("aten::linear.default"), {Argument::value(relu->output()), Argument::value(w2)},
                              DType::Float32, {2, 2}, nullptr, "fc2");
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(lin2->output()), ""});
    g.verify();
  }

  static CalibrationBatch batchOf(float start) {
    std::vector<float> v(8);
    for (int i = 0; i < 8; ++i)
      v[i] = start + static_cast<float>(i) - 4.0f;
    return {f32({2, 4}, v)};
  }

  quant::CalibrationRunStats run(RecordingQuantizer &q, std::vector<CalibrationBatch> batches,
                                 quant::CalibrationRunOptions options = {}) {
    VectorSource source(std::move(batches));
    CalibrationPlan plan;
    QuantizeContext context(atenEval()->registry, source.size());
    q.prepare(g, plan, context);
    options.label = "quantizer 'recording'";
    options.progress = false;
    return quant::runCalibration(g, *atenEval()->evaluator, source, plan, q, context, options);
  }

  Graph g{&tico::pt2::torchOpSchemas()};
};

TEST_F(CalibrationRunnerTest, RunsNodeMajorAndCallsLayerAfterAllBatchesOfItsInputs) {
  build();
  RecordingQuantizer q;
  q.observe_names = {"x", "relu_out"};
  q.layer_name = "fc";
  run(q, {batchOf(0), batchOf(1), batchOf(2)});
  const std::vector<std::string> expected = {"observe x 0",        "observe x 1",        "observe x 2",
                                             "layer fc",           "observe relu_out 0", "observe relu_out 1",
                                             "observe relu_out 2"};
  EXPECT_EQ(q.events, expected);
  // relu(x W^T + b) with W = I, b = [0.5, 0, 0, 0] for the first batch.
  ASSERT_EQ(q.seen.size(), 6u);
  EXPECT_EQ(q.seen[3].data, (std::vector<float>{0, 0, 0, 0, 0.5f, 1, 2, 3}));
}

TEST_F(CalibrationRunnerTest, ReplacedWeightsReachLaterLayers) {
  build();
  RecordingQuantizer q;
  q.observe_names = {"fc2"};
  q.layer_name = "fc";
  q.replacement = f32({4, 4}, std::vector<float>(16, 0.0f)); // only the bias is left
  run(q, {batchOf(0), batchOf(3)});
  ASSERT_EQ(q.seen.size(), 2u);
  // relu(b) = [0.5, 0, 0, 0] in both rows; W2 rows sum to 0.5 and 0.5.
  for (const Seen &s : q.seen)
    EXPECT_EQ(s.data, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST_F(CalibrationRunnerTest, MemoryBudgetOffloadsWithoutChangingResults) {
  build();
  std::vector<CalibrationBatch> batches;
  for (int b = 0; b < 6; ++b)
    batches.push_back(batchOf(static_cast<float>(b)));
  RecordingQuantizer free_run;
  free_run.observe_names = {"fc", "relu_out", "fc2"};
  quant::CalibrationRunStats unlimited = run(free_run, batches);
  EXPECT_EQ(unlimited.offloaded_tensors, 0u);
  EXPECT_GE(unlimited.peak_resident_bytes, 6u * 32u); // every batch's x is live at the start

  RecordingQuantizer limited;
  limited.observe_names = free_run.observe_names;
  quant::CalibrationRunOptions options;
  options.memory_budget = 80; // two [2, 4] float tensors and a half
  quant::CalibrationRunStats stats = run(limited, batches, options);
  EXPECT_GT(stats.offloaded_tensors, 0u);
  EXPECT_LE(stats.peak_resident_bytes, unlimited.peak_resident_bytes);
  ASSERT_EQ(limited.seen.size(), free_run.seen.size());
  for (std::size_t i = 0; i < limited.seen.size(); ++i) {
    EXPECT_EQ(limited.seen[i].value, free_run.seen[i].value);
    EXPECT_EQ(limited.seen[i].batch, free_run.seen[i].batch);
    EXPECT_EQ(limited.seen[i].data, free_run.seen[i].data);
  }
}

TEST_F(CalibrationRunnerTest, BudgetTooSmallForOneNodeIsAnError) {
  build();
  RecordingQuantizer q;
  q.observe_names = {"relu_out"};
  quant::CalibrationRunOptions options;
  options.memory_budget = 40; // less than x and fc_out of one batch
  const std::string message = errorOf([&] { run(q, {batchOf(0)}, options); });
  EXPECT_NE(message.find("cannot hold node 'fc' (aten::linear.default) for one batch"), std::string::npos) << message;
  EXPECT_NE(message.find("calibration.memory_budget"), std::string::npos) << message;
}

TEST_F(CalibrationRunnerTest, NanInAnObservedValueNamesBatchAndInput) {
  build();
  RecordingQuantizer q;
  q.observe_names = {"x"};
  std::vector<float> bad(8, 1.0f);
  bad[5] = std::numeric_limits<float>::quiet_NaN();
  const std::string message = errorOf([&] { run(q, {batchOf(0), {f32({2, 4}, bad)}}); });
  EXPECT_NE(message.find("calibration batch 1 of test batches: input 'x' holds NaN (element 5)"), std::string::npos)
      << message;
}

TEST_F(CalibrationRunnerTest, BatchThatDoesNotFitTheInputsIsAnError) {
  build();
  RecordingQuantizer q;
  q.observe_names = {"x"};
  const std::string message = errorOf([&] { run(q, {batchOf(0), {f32({3, 4}, std::vector<float>(12, 0.0f))}}); });
  EXPECT_NE(message.find("calibration batch 1 of test batches does not fit the graph's inputs"), std::string::npos)
      << message;
  EXPECT_NE(message.find("input 0 ('x') dimension 0 is 3, expected 2"), std::string::npos) << message;
}

TEST_F(CalibrationRunnerTest, ReplacementOfAnotherShapeIsAnError) {
  build();
  RecordingQuantizer q;
  q.layer_name = "fc";
  q.replacement = f32({2, 2}, {0, 0, 0, 0});
  const std::string message = errorOf([&] { run(q, {batchOf(0)}); });
  EXPECT_NE(message.find("replaced constant 'w' of node 'fc' with a tensor of another type or shape"),
            std::string::npos)
      << message;
}

TEST_F(CalibrationRunnerTest, EmptySourceIsAnError) {
  build();
  RecordingQuantizer q;
  q.observe_names = {"x"};
  EXPECT_NE(errorOf([&] { run(q, {}); }).find("holds no batch"), std::string::npos);
}

} // namespace
} // namespace tico
