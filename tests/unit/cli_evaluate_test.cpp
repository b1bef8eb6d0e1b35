// tico-run --evaluate at several points of the pipeline in one run (--evaluate-after): each
// point's outputs in its own folder, a skipped stage evaluated on the graph it was given, point
// names checked against the pipeline before anything runs, and nothing written when a later
// point fails.
#include "cli_test_support.h"

#include "tico/io/npy.h"
#include "tico/ir/tensor_data.h"

#include <cstring>

namespace tico::cli_test {
namespace {

namespace fs = std::filesystem;

// relu(x) + x: [[-1, 2, -3], [4, -5, 6]] gives [[-1, 4, -3], [8, -5, 12]].
const std::string kModel = "graph @main {\n  input %x: f32[2, 3]\n  %r: f32[2, 3] = aten::relu.default(%x)\n"
                           "  %s: f32[2, 3] = aten::add.Tensor(%r, %x)\n  return %s\n}\n";
const std::vector<float> kInput{-1, 2, -3, 4, -5, 6};
const std::vector<float> kExpected{-1, 4, -3, 8, -5, 12};

class EvaluateAfter : public ::testing::Test {
protected:
  void SetUp() override {
#if !TICO_WITH_LIBTORCH
    GTEST_SKIP() << "built with TICO_WITH_LIBTORCH=OFF: no evaluator";
#endif
    writeAll(dir / "m.tir", kModel);
    writeNpy(dir / "x.npy", TensorData::fromVector(DType::Float32, {2, 3}, kInput));
  }

  // tico-run --evaluate on m.tir with the default pipeline, plus `extra` arguments.
  ToolResult evaluate(std::vector<std::string> extra) {
    std::vector<std::string> args{"m.tir", "--pipeline", std::string(TICO_SOURCE_DIR) + "/configs/pipelines/default.yaml",
                                  "--evaluate", "--input", "x.npy", "--output-dir", "out"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runTool(TICO_RUN_PATH, args, dir.path(), std::chrono::seconds(60));
  }

  std::vector<float> output(const std::string &relative) {
    auto t = readNpy(dir / relative);
    std::vector<float> values(t->numel());
    std::memcpy(values.data(), t->contiguousBytes().data(), values.size() * sizeof(float));
    return values;
  }

  ScratchDir dir;
};

TEST_F(EvaluateAfter, EachPointGetsItsOwnFolder) {
  // fake-quantize is skipped (the graph has no quantization ops): it is evaluated on the graph
  // the stage was given.
  const ToolResult r = evaluate({"--evaluate-after", "frontend", "--evaluate-after", "fake-quantize",
                                 "--evaluate-after", "legalize", "--evaluate-after", "end"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char *point : {"frontend", "fake-quantize", "legalize", "end"})
    EXPECT_EQ(output(std::string("out/") + point + "/out0.npy"), kExpected) << point;
  EXPECT_FALSE(fs::exists(dir / "out/out0.npy"));
  EXPECT_FALSE(fs::exists(dir / "out/decompose")); // only what was asked for
}

TEST_F(EvaluateAfter, WithoutPointsTheEndGoesIntoTheOutputDir) {
  const ToolResult r = evaluate({});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(output("out/out0.npy"), kExpected);
}

TEST_F(EvaluateAfter, UnknownPointIsRefusedBeforeAnythingRuns) {
  const ToolResult r = evaluate({"--evaluate-after", "frontend", "--evaluate-after", "legalise"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--evaluate-after 'legalise': no such point in the pipeline (did you mean 'legalize'?)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the points are frontend, functionalize,"), std::string::npos) << r.output;
  // The lower stage and the Circle stages are not points: the evaluator runs ATen graphs.
  const ToolResult lower = evaluate({"--evaluate-after", "lower"});
  EXPECT_EQ(lower.exit_code, 1) << lower.output;
  EXPECT_NE(lower.output.find("'lower': no such point"), std::string::npos) << lower.output;
  const ToolResult twice = evaluate({"--evaluate-after", "end", "--evaluate-after", "end"});
  EXPECT_NE(twice.output.find("'end' is given twice"), std::string::npos) << twice.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_F(EvaluateAfter, GoesWithEvaluateOnly) {
  const ToolResult alone = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "--evaluate-after", "end", "-o",
                                                   "m.circle"},
                                   dir.path());
  EXPECT_EQ(alone.exit_code, 1) << alone.output;
  EXPECT_NE(alone.output.find("--evaluate-after goes with --evaluate"), std::string::npos) << alone.output;
  const ToolResult both = evaluate({"--stop-after", "frontend", "--evaluate-after", "end"});
  EXPECT_EQ(both.exit_code, 1) << both.output;
  EXPECT_NE(both.output.find("do not go together"), std::string::npos) << both.output;
  EXPECT_FALSE(fs::exists(dir / "m.circle"));
}

TEST_F(EvaluateAfter, AFailingLaterPointWritesNothing) {
  // With a quantization recipe the graph holds quantized tensors after 'quantize': 'legalize'
  // evaluates, 'end' cannot, and neither folder is written.
  const ToolResult r = evaluate({"--quant", std::string(TICO_SOURCE_DIR) + "/configs/quant/cnn-uint8.yaml",
                                 "--calibration", "random", "--no-progress", "--evaluate-after", "legalize",
                                 "--evaluate-after", "end"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--evaluate after 'end': the graph holds quantized tensors"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // The point before quantization alone evaluates.
  const ToolResult before = evaluate({"--quant", std::string(TICO_SOURCE_DIR) + "/configs/quant/cnn-uint8.yaml",
                                      "--calibration", "random", "--no-progress", "--evaluate-after", "legalize"});
  ASSERT_EQ(before.exit_code, 0) << before.output;
  EXPECT_EQ(output("out/legalize/out0.npy"), kExpected);
}

TEST_F(EvaluateAfter, RepeatedOptionsTakeOneValueEach) {
  // The model named after a repeatable option is the model, not a second --input.
  const ToolResult r = runTool(TICO_RUN_PATH,
                               {"--pipeline", std::string(TICO_SOURCE_DIR) + "/configs/pipelines/default.yaml",
                                "--evaluate", "--output-dir", "out", "--evaluate-after", "frontend", "--input",
                                "x.npy", "m.tir"},
                               dir.path(), std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(output("out/frontend/out0.npy"), kExpected);
}

} // namespace
} // namespace tico::cli_test
