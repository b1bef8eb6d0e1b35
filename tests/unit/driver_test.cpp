// The conversion driver: stages of every kind run in manifest order with their strategies and
// conditions, quantizers and Circle passes are invoked through their ABIs, options reach the
// plugins, IR dumps and timings are produced, and the output is written atomically.
#include "pt2/torch_op_table.h"
#include "tico/circle/verify.h"
#include "tico/circle/circle_pass.h"
#include "tico/lowering/lowering.h"
#include "tico/pipeline/driver.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace tico;

namespace {

const OpKey kRelu("aten", "relu", "default");
const OpKey kNeg("aten", "neg", "default");

// relu(x) -> neg(x): observable in the graph and in the Circle operator list.
class ReluToNeg : public Pass {
public:
  explicit ReluToNeg(std::vector<std::string> *log) : log_(log) {}
  bool run(Graph &g, PassContext &) override {
    log_->push_back("pass");
    for (const auto &n : g.nodes())
      if (n->op() == kRelu) {
        Node *neg = g.createNode(kNeg, {Argument::value(n->input(0))}, n->output()->dtype(), n->output()->shape(),
                                 n.get());
        g.replaceAllUsesWith(n->output(), neg->output());
        g.removeDeadNodes();
        return true;
      }
    return false;
  }

private:
  std::vector<std::string> *log_;
};

// Records its option so the test sees options travel from the manifest to the plugin.
class RecordingQuantizer : public Quantizer {
public:
  RecordingQuantizer(std::vector<std::string> *log, int64_t bits) : log_(log), bits_(bits) {}
  void prepare(const Graph &, CalibrationPlan &, QuantizeContext &) override {}
  bool convert(Graph &, QuantizeContext &) override {
    log_->push_back("quantize bits=" + std::to_string(bits_));
    return false;
  }

private:
  std::vector<std::string> *log_;
  int64_t bits_;
};

class DescribeModel : public CirclePass {
public:
  explicit DescribeModel(std::vector<std::string> *log) : log_(log) {}
  bool run(CircleModel &model, PassContext &) override {
    log_->push_back("circle ops=" + std::to_string(model.subgraphs.at(0).operators.size()));
    if (model.description == "described")
      return false;
    model.description = "described";
    return true;
  }

private:
  std::vector<std::string> *log_;
};

// Reports a change for its first `changes` runs: a quantizer that converges.
class CountdownQuantizer : public Quantizer {
public:
  CountdownQuantizer(std::vector<std::string> *log, int changes) : log_(log), changes_(changes) {}
  void prepare(const Graph &, CalibrationPlan &, QuantizeContext &) override {}
  bool convert(Graph &, QuantizeContext &) override {
    log_->push_back("countdown");
    return changes_-- > 0;
  }

private:
  std::vector<std::string> *log_;
  int changes_;
};

// Circle passes that misbehave: one never converges, one throws, one breaks the model.
class SpinningCirclePass : public CirclePass {
public:
  bool run(CircleModel &, PassContext &) override { return true; }
};
class ThrowingCirclePass : public CirclePass {
public:
  bool run(CircleModel &, PassContext &) override { throw Error("no room left"); }
};
class DanglingInputCirclePass : public CirclePass {
public:
  bool run(CircleModel &model, PassContext &) override {
    model.subgraphs.at(0).operators.at(0).inputs.push_back(99);
    return true;
  }
};

class NegLowering : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override {
    emit.addOperator(circle::BuiltinOperator::NEG, {emit.tensor(node.input(0))}, {emit.tensor(node.output())});
  }
};

class DriverTest : public ::testing::Test {
protected:
  DriverTest() {
    Provenance from{"driver-test", "1.0", "<test>"};
    registry.addPass({"relu-to-neg", "", {}, [this](const Options &) { return std::make_unique<ReluToNeg>(&log); }},
                     from);
    registry.addQuantizer({"recording", "", {{"bits", OptionType::Int, int64_t{8}, ""}},
                           [this](const Options &o) {
                             return std::make_unique<RecordingQuantizer>(&log, o.getInt("bits"));
                           }},
                          from);
    registry.addCirclePass(
        {"describe", "", {}, [this](const Options &) { return std::make_unique<DescribeModel>(&log); }}, from);
    registry.addLowering({kNeg, "", 0, std::make_shared<NegLowering>()}, from);
    registry.addQuantizer({"countdown", "", {}, [this](const Options &) {
                             return std::make_unique<CountdownQuantizer>(&log, 2);
                           }},
                          from);
    registry.addCirclePass({"spin", "", {}, [](const Options &) { return std::make_unique<SpinningCirclePass>(); }},
                           from);
    registry.addCirclePass({"throw", "", {}, [](const Options &) { return std::make_unique<ThrowingCirclePass>(); }},
                           from);
    registry.addCirclePass(
        {"dangle", "", {}, [](const Options &) { return std::make_unique<DanglingInputCirclePass>(); }}, from);

    auto g = std::make_unique<Graph>(&tico::pt2::torchOpSchemas());
    Value *x = g->addInput(InputKind::User, "x", DType::Float32, {2, 3});
    Node *relu = g->createNode(kRelu, {Argument::value(x)}, DType::Float32, {2, 3});
    g->addOutput(GraphOutput{OutputKind::User, Argument::value(relu->output()), ""});
    options.graph = std::move(g);
    dir = std::filesystem::temp_directory_path() / ("tico_driver_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  ~DriverTest() override { std::filesystem::remove_all(dir); }

  Manifest manifest(const std::string &stages) {
    Manifest m = Manifest::parse("schema: tico.pipeline/v1\nstages:\n" + stages, "test.yaml");
    m.validate(registry);
    return m;
  }

  Registry registry;
  ConversionOptions options;
  std::vector<std::string> log;
  std::filesystem::path dir;
};

} // namespace

TEST_F(DriverTest, RunsEveryStageKindInOrderAndWritesTheModel) {
  Manifest m = manifest(R"(  - name: quant-only
    kind: quantize
    when: has-quant-ops
    passes: [recording]
  - name: legalize
    passes: [relu-to-neg]
  - name: quantize
    kind: quantize
    passes:
      - name: recording
        options: {bits: 4}
  - name: circle
    kind: circle
    strategy: until_no_change
    passes: [describe]
)");
  std::vector<std::string> dumps;
  options.dump_ir = [&](const std::string &title, const std::string &) { dumps.push_back(title); };
  options.output_path = (dir / "out.circle").string();
  ConversionResult result = convert(registry, m, options);

  // The conditional stage was skipped (no quantization ops); restart ran relu-to-neg until it
  // stopped changing; until_no_change ran the Circle pass until it reported no change.
  EXPECT_EQ(log, (std::vector<std::string>{"pass", "pass", "quantize bits=4", "circle ops=1", "circle ops=1"}));
  EXPECT_EQ(dumps, (std::vector<std::string>{"after frontend", "after stage legalize", "after stage quantize"}));
  ASSERT_TRUE(result.model);
  EXPECT_EQ(result.model->description, "described");
  ASSERT_EQ(result.model->operator_codes.size(), 1u);
  EXPECT_EQ(result.model->operator_codes[0].builtin_code, static_cast<int32_t>(circle::BuiltinOperator::NEG));
  EXPECT_TRUE(std::filesystem::exists(options.output_path));
  std::vector<std::string> phases;
  for (const auto &t : result.timings)
    phases.push_back(t.phase);
  EXPECT_EQ(phases, (std::vector<std::string>{"frontend", "stage legalize", "stage quantize", "lowering",
                                              "circle stage circle", "write"}));
}

TEST_F(DriverTest, StopsBeforeLoweringWhenAsked) {
  Manifest m = manifest("  - name: legalize\n    passes: [relu-to-neg]\n");
  options.stop_before_lowering = true;
  ConversionResult result = convert(registry, m, options);
  EXPECT_FALSE(result.model);
  ASSERT_EQ(result.graph->numNodes(), 1u);
  EXPECT_EQ(result.graph->nodes().front()->op(), kNeg);

  options.stop_after_frontend = true;
  result = convert(registry, m, options);
  EXPECT_EQ(result.graph->nodes().front()->op(), kRelu);
}

TEST_F(DriverTest, UnsupportedOpsFailBeforeAnythingIsWritten) {
  Manifest m = manifest("  - name: nothing\n    passes: []\n"); // relu stays; only neg has a lowering
  const auto out = dir / "existing.circle";
  { std::ofstream(out) << "keep me"; }
  options.output_path = out.string();
  try {
    convert(registry, m, options);
    FAIL() << "expected the unsupported relu to be reported";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("aten::relu.default x1 (relu)"), std::string::npos) << e.what();
  }
  std::ifstream in(out);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "keep me");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1); // no temporary left
}

TEST_F(DriverTest, FrontendSelectionExplainsMissingFrontends) {
  Manifest m = manifest("  - name: nothing\n    passes: []\n");
  ConversionOptions from_file;
  from_file.input_path = (dir / "model.onnx").string();
  { std::ofstream(from_file.input_path) << "not a model"; }
  try {
    convert(registry, m, from_file);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no frontend recognises"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no frontend plugin is loaded"), std::string::npos) << e.what();
  }
  from_file.input_path = (dir / "missing.pt2").string();
  EXPECT_THROW(convert(registry, m, from_file), Error);
}

TEST_F(DriverTest, ExplicitLowerStageRunsWhereItIsWritten) {
  Manifest m = manifest(R"(  - name: legalize
    passes: [relu-to-neg]
  - name: to-circle
    kind: lower
    options: {remove_constant_input: true}
  - name: circle
    kind: circle
    passes: [describe]
)");
  options.time_passes = true;
  ConversionResult result = convert(registry, m, options);
  ASSERT_TRUE(result.model);
  EXPECT_EQ(result.model->description, "described");
  std::vector<std::string> phases, passes;
  for (const auto &t : result.timings)
    phases.push_back(t.phase);
  for (const auto &t : result.pass_timings)
    passes.push_back(t.phase);
  EXPECT_EQ(phases, (std::vector<std::string>{"frontend", "stage legalize", "lowering", "circle stage circle"}));
  // Circle passes are timed by the same instrumentation as graph passes.
  EXPECT_EQ(passes, (std::vector<std::string>{"relu-to-neg", "relu-to-neg", "describe", "describe"}));

  // --emit tir / --evaluate stop at the lower stage: no Circle stage runs.
  log.clear();
  options.stop_before_lowering = true;
  result = convert(registry, m, options);
  EXPECT_FALSE(result.model);
  EXPECT_EQ(log, (std::vector<std::string>{"pass", "pass"}));
}

TEST_F(DriverTest, CircleStageConditionsLookAtTheLoweredGraph) {
  Manifest m = manifest(R"(  - name: legalize
    passes: [relu-to-neg]
  - name: only-with-relu
    kind: circle
    when: has-op(aten::relu)
    passes: [describe]
  - name: only-with-neg
    kind: circle
    when: has-op(aten::neg)
    passes: [describe]
)");
  ConversionResult result = convert(registry, m, options);
  EXPECT_EQ(log, (std::vector<std::string>{"pass", "pass", "circle ops=1", "circle ops=1"}));
  std::vector<std::string> phases;
  for (const auto &t : result.timings)
    phases.push_back(t.phase);
  EXPECT_EQ(phases, (std::vector<std::string>{"frontend", "stage legalize", "lowering", "circle stage only-with-neg"}));
}

TEST_F(DriverTest, QuantizeStagesRunOnceUnlessToldOtherwise) {
  options.stop_before_lowering = true;
  convert(registry, manifest("  - name: q\n    kind: quantize\n    passes: [countdown]\n"), options);
  EXPECT_EQ(log, (std::vector<std::string>{"countdown"})) << "quantize stages default to once";
  log.clear();
  convert(registry, manifest("  - name: q\n    kind: quantize\n    strategy: restart\n    passes: [countdown]\n"),
          options);
  EXPECT_EQ(log, (std::vector<std::string>{"countdown", "countdown", "countdown"})) << "restart until no change";
}

TEST_F(DriverTest, CircleStagesShareTheGuardErrorsAndVerification) {
  auto errorOf = [&](const std::string &stages, bool verify_each = false) {
    options.verify_each = verify_each;
    try {
      // relu-to-neg first: only neg has a lowering.
      convert(registry, manifest("  - name: g\n    passes: [relu-to-neg]\n" + stages), options);
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  const std::string spin = errorOf("  - name: c\n    kind: circle\n    passes: [describe, spin]\n");
  EXPECT_NE(spin.find("pass pipeline did not converge after 1000 changing iterations (strategy restart); passes "
                      "that kept changing the Circle model in the last iterations: spin (50x)"),
            std::string::npos)
      << spin;
  EXPECT_EQ(errorOf("  - name: c\n    kind: circle\n    passes: [throw]\n"), "Circle pass 'throw' failed: no room left");
  EXPECT_EQ(errorOf("  - name: c\n    kind: circle\n    strategy: once\n    passes: [dangle]\n"), "<no error>");
  // The core has no Circle verifier: without one from the host, verify-each cannot check.
  EXPECT_EQ(errorOf("  - name: c\n    kind: circle\n    strategy: once\n    passes: [dangle]\n", true), "<no error>");
  options.verify_circle = requireValidCircleModel;
  const std::string broken = errorOf("  - name: c\n    kind: circle\n    strategy: once\n    passes: [dangle]\n", true);
  EXPECT_EQ(broken.rfind("the Circle model is invalid after Circle pass 'dangle': ERROR [", 0), 0u) << broken;
}

TEST_F(DriverTest, RunStageRefusesStagesOfTheOtherIR) {
  Manifest m = manifest("  - name: g\n    passes: [relu-to-neg]\n  - name: c\n    kind: circle\n    passes: [describe]\n");
  CircleModel model;
  Graph graph;
  EXPECT_THROW(runStage(registry, m.stages[0], model), LocatedError);
  EXPECT_THROW(runStage(registry, m.stages[1], graph), LocatedError);
}
