// tico-run --incremental and the Circle tools on its output (docs/incremental.md): the sidecar,
// inspect's manifest summary, verify's rule INCREMENTAL_MANIFEST on a tampered manifest and on
// a retained tensor whose contract differs across a frontier edge, the option errors, and
// serve-incremental (the runtime layer) on seeded and file traces.
#include "cli_test_support.h"

#include "tico/circle/reader.h"
#include "tico/circle/writer.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tico::cli_test {
namespace {

const std::string kModel = "graph @main {\n"
                           "  input %x: f32[2, 8]\n"
                           "  input %y: f32[2, 8]\n"
                           "  %tx: f32[2, 8] = aten::tanh.default(%x)\n"
                           "  %sy: f32[2, 8] = aten::sigmoid.default(%y)\n"
                           "  %s: f32[2, 8] = aten::add.Tensor(%tx, %sy)\n"
                           "  %m: f32[2, 8] = aten::mul.Tensor(%s, %tx)\n"
                           "  return %m\n"
                           "}\n";

struct Converted {
  ScratchDir dir;
  ToolResult made;
  Converted() {
    writeAll(dir / "m.tir", kModel);
    made = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "--incremental", "-o", "m.circle"}, dir.path());
  }
};

nlohmann::json manifestOf(const CircleModel &model, uint32_t *buffer = nullptr) {
  for (const auto &[name, b] : model.metadata)
    if (name == "incremental.manifest.v1") {
      if (buffer)
        *buffer = b;
      auto bytes = model.buffers.at(b).data->contiguousBytes();
      return nlohmann::json::parse(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
    }
  return nullptr;
}

void setManifest(CircleModel &model, const nlohmann::json &manifest) {
  uint32_t buffer = 0;
  manifestOf(model, &buffer);
  const std::string text = manifest.dump(2);
  std::vector<uint8_t> bytes(text.begin(), text.end());
  model.buffers[buffer].data = std::make_shared<TensorData>(
      TensorData::fromVector(DType::UInt8, {static_cast<int64_t>(bytes.size())}, bytes));
}

// Converts `model` with the pipeline `yaml` (tico-run --pipeline) and returns the sidecar.
nlohmann::json convertWithPipeline(const ScratchDir &dir, const std::string &model, const std::string &yaml) {
  writeAll(dir / "m.tir", model);
  writeAll(dir / "p.yaml", "schema: tico.pipeline/v1\nstages:\n" + yaml);
  const ToolResult r = runTool(TICO_RUN_PATH, {"m.tir", "--pipeline", "p.yaml", "-o", "m.circle"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0)
    return nullptr;
  const auto sidecar = nlohmann::json::parse(readAll(dir / "m.incremental.json"));
  EXPECT_EQ(sidecar, manifestOf(readCircleFile(dir / "m.circle")));
  return sidecar;
}

TEST(CliIncremental, SidecarInspectAndVerify) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  const auto sidecar = nlohmann::json::parse(readAll(c.dir / "m.incremental.json"));
  const CircleModel model = readCircleFile(c.dir / "m.circle");
  EXPECT_EQ(sidecar, manifestOf(model));
  EXPECT_EQ(sidecar["strategies"].size(), 4u); // monolithic, changed_x, changed_y, all_changed
  EXPECT_EQ(model.subgraphs.size(), 4u);

  const ToolResult inspect = runTool(TICO_CIRCLE_PATH, {"inspect", "m.circle"}, c.dir.path());
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("incremental manifest: groups x, y; 3 callables"), std::string::npos)
      << inspect.output;
  EXPECT_NE(inspect.output.find("strategy 'changed_y' changed [\"y\"]: region_y -> tail_x__y"), std::string::npos)
      << inspect.output;
  const ToolResult verify = runTool(TICO_CIRCLE_PATH, {"verify", "m.circle"}, c.dir.path());
  EXPECT_EQ(verify.exit_code, 0) << verify.output;

  const ToolResult json = runTool(TICO_CIRCLE_PATH, {"inspect", "m.circle", "--json"}, c.dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto doc = nlohmann::json::parse(json.output);
  EXPECT_EQ(doc["incremental"]["groups"], nlohmann::json::array({"x", "y"}));
  EXPECT_EQ(doc["incremental"]["retained_bytes"], 128);
  EXPECT_EQ(doc["incremental"]["strategies"][1]["steps"], nlohmann::json::array({"region_x", "tail_x__y"}));
  EXPECT_EQ(doc["incremental"]["rejected"], 0);
}

TEST(CliIncremental, APipelineStageRunsThePassAndGetsTheSidecar) {
  ScratchDir dir;
  const auto sidecar = convertWithPipeline(dir, kModel,
                                           "  - name: incremental\n"
                                           "    kind: circle\n"
                                           "    strategy: once\n"
                                           "    passes:\n"
                                           "      - name: incremental-strategies\n"
                                           "        options:\n"
                                           "          max_strategies: 1\n");
  ASSERT_FALSE(sidecar.is_null());
  EXPECT_EQ(sidecar["strategies"].size(), 3u); // monolithic, one strategy, all_changed
  ASSERT_EQ(sidecar["rejected"].size(), 1u);
  EXPECT_NE(sidecar["rejected"][0]["reason"].get<std::string>().find("max_strategies (1) reached"), std::string::npos);
}

TEST(CliIncremental, APipelineStagesManifestIsCheckedAndWrittenWithTheFile) {
  // The manifest a pipeline stage adds is an output like --incremental's: it may not collide
  // with another output, and a target that cannot take it stops the run before the Circle file
  // is written (all or none).
  ScratchDir dir;
  writeAll(dir / "m.tir", kModel);
  writeAll(dir / "p.yaml", "schema: tico.pipeline/v1\nstages:\n"
                           "  - name: incremental\n"
                           "    kind: circle\n"
                           "    passes: [incremental-strategies]\n");
  ToolResult r = runTool(TICO_RUN_PATH,
                         {"m.tir", "--pipeline", "p.yaml", "-o", "m.circle", "--encodings", "m.incremental.json"},
                         dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--encodings 'm.incremental.json' and the incremental manifest 'm.incremental.json' name "
                          "the same file"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.circle"));
  EXPECT_FALSE(std::filesystem::exists(dir / "m.incremental.json"));

  std::filesystem::create_directory(dir / "m.incremental.json");
  r = runTool(TICO_RUN_PATH, {"m.tir", "--pipeline", "p.yaml", "-o", "m.circle"}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("output 'm.incremental.json' is a directory"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.circle"));
}

TEST(CliIncremental, APipelineStageSeesTheProgramsStateWrites) {
  // kModel plus a call counter the program writes back: state-writes drops the write-back
  // before lowering, so the Circle model shows nothing, yet every strategy would skip it.
  std::string model = kModel;
  model.insert(model.find('\n') + 1, "  buffer %calls: f32[1] \"calls\" = dense<[0.0]>\n");
  const std::string ret = "  return %m\n";
  model.replace(model.find(ret), ret.size(),
                "  %n: f32[1] = aten::add.Scalar(%calls, 1.0)\n"
                "  return %m, buffer_mutation \"calls\" %n\n");
  ScratchDir dir;
  const auto sidecar = convertWithPipeline(dir, model,
                                           "  - name: prepare\n"
                                           "    passes: [remove-nop, state-writes]\n"
                                           "  - name: incremental\n"
                                           "    kind: circle\n"
                                           "    passes: [incremental-strategies]\n");
  ASSERT_FALSE(sidecar.is_null());
  ASSERT_EQ(sidecar["strategies"].size(), 1u) << sidecar.dump(2);
  EXPECT_EQ(sidecar["strategies"][0]["name"], "monolithic");
  ASSERT_EQ(sidecar["rejected"].size(), 2u) << sidecar.dump(2);
  for (const auto &rejected : sidecar["rejected"])
    EXPECT_NE(rejected["reason"].get<std::string>().find("mutates 'calls'"), std::string::npos) << rejected.dump();
}

TEST(CliIncremental, VerifyFindsAManifestThatDisagreesWithTheFile) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  CircleModel model = readCircleFile(c.dir / "m.circle");
  auto manifest = manifestOf(model);
  manifest["callables"][0]["signature"] = "region_nope";
  setManifest(model, manifest);
  writeCircleFile(model, c.dir / "bad.circle");
  const ToolResult verify = runTool(TICO_CIRCLE_PATH, {"verify", "bad.circle"}, c.dir.path());
  EXPECT_EQ(verify.exit_code, 2) << verify.output;
  EXPECT_NE(verify.output.find("ERROR [INCREMENTAL_MANIFEST] manifest.callables[0]: signature 'region_nope' is not "
                               "in the file"),
            std::string::npos)
      << verify.output;
  EXPECT_NE(verify.output.find("step 'region_x' is no callable of the manifest"), std::string::npos) << verify.output;
}

TEST(CliIncremental, VerifyFindsARetainedContractThatDiffersAcrossAFrontierEdge) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  CircleModel model = readCircleFile(c.dir / "m.circle");
  // The tail reads tx (retained, produced by region_x): give its copy in the tail a scale.
  const auto manifest = manifestOf(model);
  uint32_t tail = 0;
  for (const auto &callable : manifest["callables"])
    if (callable["kind"] == "fusion_tail")
      tail = callable["subgraph"].get<uint32_t>();
  ASSERT_GT(tail, 0u);
  bool changed = false;
  for (auto &t : model.subgraphs[tail].tensors)
    if (t.name == "tx") {
      auto q = std::make_shared<circle::QuantizationParametersT>();
      q->scale = {0.5f};
      q->zero_point = {0};
      t.quantization = q;
      changed = true;
    }
  ASSERT_TRUE(changed) << manifest.dump();
  writeCircleFile(model, c.dir / "bad.circle");
  const ToolResult verify = runTool(TICO_CIRCLE_PATH, {"verify", "--no-warnings", "bad.circle"}, c.dir.path());
  EXPECT_EQ(verify.exit_code, 2) << verify.output;
  EXPECT_NE(verify.output.find("'tx' has another type, shape or quantization in signature 'tail_x__y'"),
            std::string::npos)
      << verify.output;
}

// Forged manifests (tracker issue 31): each passed verify before and serve-incremental served
// it (moving an input to another group gave 15 of 30 steps that differed from the monolith). Now
// verify reports the contradiction with the model's dataflow and serve-incremental refuses to
// start, both naming it.
// The model with `forged` as its manifest: verify reports `verify_text`, serve-incremental
// refuses to start naming `problem`.
void expectRefused(const Converted &c, const nlohmann::json &forged, const std::string &verify_text,
                   const std::string &problem) {
  CircleModel model = readCircleFile(c.dir / "m.circle");
  setManifest(model, forged);
  writeCircleFile(model, c.dir / "forged.circle");
  const ToolResult verify = runTool(TICO_CIRCLE_PATH, {"verify", "--no-warnings", "forged.circle"}, c.dir.path());
  EXPECT_EQ(verify.exit_code, 2) << verify.output;
  EXPECT_NE(verify.output.find(verify_text), std::string::npos) << verify.output;
  const ToolResult serve =
      runTool(TICO_CIRCLE_PATH, {"serve-incremental", "forged.circle", "--steps", "30", "--check"}, c.dir.path());
  EXPECT_NE(serve.exit_code, 0) << serve.output;
  EXPECT_NE(serve.output.find(problem), std::string::npos) << serve.output;
}

void expectRefusedEverywhere(const Converted &c, const nlohmann::json &forged, const std::string &problem) {
  expectRefused(c, forged, "ERROR [INCREMENTAL_MANIFEST] manifest: incremental manifest: " + problem, problem);
}

TEST(CliIncremental, AnInputMovedToAnotherGroupIsRefused) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  auto m = manifestOf(readCircleFile(c.dir / "m.circle"));
  // y joins x's group, consistently in both places the manifest names it.
  ASSERT_EQ(m["groups"].size(), 2u) << m["groups"].dump();
  m["groups"][0]["inputs"].push_back("y");
  m["groups"][1]["inputs"] = nlohmann::json::array();
  m["inputs"][1]["group"] = m["groups"][0]["name"];
  expectRefusedEverywhere(c, m, "public output 'm' declares support {x, y}, subgraph 0 computes it from {x}");
  // verify lists every contradiction, the retained value's too.
  const ToolResult verify = runTool(TICO_CIRCLE_PATH, {"verify", "--no-warnings", "forged.circle"}, c.dir.path());
  EXPECT_NE(verify.output.find("retained value 'sy' declares support {y}, the model computes it from {x}"),
            std::string::npos)
      << verify.output;
}

TEST(CliIncremental, AForgedSupportIsRefused) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  auto m = manifestOf(readCircleFile(c.dir / "m.circle"));
  // tx depends on x; declaring it y's would let the strategy for x changes read it stale.
  for (auto &r : m["retained"])
    if (r["name"] == "tx")
      r["support"] = {"y"};
  expectRefusedEverywhere(c, m, "retained value 'tx' declares support {y}, the model computes it from {x}");
}

TEST(CliIncremental, AStrategyThatWouldReadAStaleValueIsRefused) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  auto m = manifestOf(readCircleFile(c.dir / "m.circle"));
  // The strategy serving y changes claims to serve x changes too, still reading tx.
  bool forged = false;
  for (auto &s : m["strategies"])
    if (s["name"] == "changed_y") {
      s["changed"] = {"x", "y"};
      forged = true;
    }
  ASSERT_TRUE(forged) << m["strategies"].dump();
  expectRefusedEverywhere(c, m,
                          "strategy 'changed_y' reads retained value 'tx', which depends on {x} that the strategy "
                          "serves changes of: it would be stale");
}

TEST(CliIncremental, AForgedRetainedContractIsRefused) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  auto m = manifestOf(readCircleFile(c.dir / "m.circle"));
  for (auto &r : m["retained"])
    if (r["name"] == "tx") {
      r["dtype"] = "INT8";
      r["shape"] = {4, 4};
    }
  expectRefusedEverywhere(c, m, "retained value 'tx' is declared INT8 [4,4], its producer 'region_x' writes FLOAT32 [2,8]");
}

TEST(CliIncremental, NumbersOutOfRangeAreRefusedNotCast) {
  // Found by the incremental-manifest fuzzer: a count written as -1.0 was cast to an unsigned
  // integer (undefined behaviour). Counts and indices must be integers that fit.
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  auto m = manifestOf(readCircleFile(c.dir / "m.circle"));
  ASSERT_FALSE(m["strategies"].empty());
  m["strategies"][0]["est_macs"] = -1.0;
  expectRefusedEverywhere(c, m, "strategy 'monolithic': 'est_macs' must be an integer in range, got -1.0");
  // 2^32 read into a subgraph index wrapped to 0 in verify's structural check.
  m = manifestOf(readCircleFile(c.dir / "m.circle"));
  m["callables"][0]["subgraph"] = 4294967296LL;
  expectRefused(c, m, "manifest.callables[0]: 'subgraph' must be an integer in range, got 4294967296",
                "'subgraph' must be an integer in range, got 4294967296");
}

TEST(CliIncremental, ServeIncrementalReplaysTracesThroughTheRuntimeLayer) {
  Converted c;
  ASSERT_EQ(c.made.exit_code, 0) << c.made.output;
  const ToolResult seeded = runTool(TICO_CIRCLE_PATH,
                                    {"serve-incremental", "m.circle", "--trace", "x:0.9,y:0.1", "--steps", "200",
                                     "--check", "--mac-only", "--json", "--reference-runs", "3"},
                                    c.dir.path());
  ASSERT_EQ(seeded.exit_code, 0) << seeded.output;
  const auto report = nlohmann::json::parse(seeded.output);
  EXPECT_EQ(report["steps"], 200);
  EXPECT_EQ(report["check"]["mismatches"], 0);
  EXPECT_EQ(report["budget_bytes"], 64 << 20);
  EXPECT_EQ(report["cache"]["full"], 1);
  EXPECT_GE(report["cache"]["hit_rate"].get<double>(), 0.9);
  // Caller versions (the pool entries) identify the same values: the same steps are taken.
  const ToolResult caller = runTool(TICO_CIRCLE_PATH,
                                    {"serve-incremental", "m.circle", "--trace", "x:0.9,y:0.1", "--steps", "200",
                                     "--check", "--mac-only", "--json", "--reference-runs", "3", "--versions", "caller"},
                                    c.dir.path());
  ASSERT_EQ(caller.exit_code, 0) << caller.output;
  const auto by_caller = nlohmann::json::parse(caller.output);
  EXPECT_EQ(by_caller["cache"], report["cache"]);
  EXPECT_EQ(by_caller["check"]["mismatches"], 0);
  for (const auto &[name, s] : report["strategies"].items())
    EXPECT_EQ(by_caller["strategies"][name]["steps"], s["steps"]) << name;

  // A trace file: x to entry 1 (a miss after the monolith: the refresh chain), y to another
  // entry (changed_y), y back to 0 (the y side the refresh cached for y = 0 is found again, so
  // changed_x serves it: equal cost, earlier in the manifest), nothing.
  writeAll(c.dir / "t.trace", "x=1  # comment\ny\ny=0\n\n-\n");
  const ToolResult file = runTool(TICO_CIRCLE_PATH,
                                  {"serve-incremental", "m.circle", "--trace-file", "t.trace", "--check", "--mac-only",
                                   "--budget", "none", "--reference-runs", "1"},
                                  c.dir.path());
  ASSERT_EQ(file.exit_code, 0) << file.output;
  EXPECT_NE(file.output.find("5 steps of trace file t.trace"), std::string::npos) << file.output;
  EXPECT_NE(file.output.find("all_changed: 1 steps"), std::string::npos) << file.output;
  EXPECT_NE(file.output.find("changed_y: 1 steps"), std::string::npos) << file.output;
  EXPECT_NE(file.output.find("changed_x: 1 steps"), std::string::npos) << file.output;
  EXPECT_NE(file.output.find("unchanged: 1 steps"), std::string::npos) << file.output;
  EXPECT_NE(file.output.find("check: 0 of 5 steps differ"), std::string::npos) << file.output;

  writeAll(c.dir / "bad.trace", "x=8\n");
  const ToolResult bad = runTool(TICO_CIRCLE_PATH, {"serve-incremental", "m.circle", "--trace-file", "bad.trace"},
                                 c.dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("bad.trace:1: 'x=8' needs an entry in [0, 8)"), std::string::npos) << bad.output;
  const ToolResult both = runTool(TICO_CIRCLE_PATH,
                                  {"serve-incremental", "m.circle", "--trace", "x:1", "--trace-file", "t.trace"},
                                  c.dir.path());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.output.find("give --trace or --trace-file, not both"), std::string::npos) << both.output;
}

TEST(CliIncremental, OptionErrors) {
  ScratchDir dir;
  writeAll(dir / "m.tir", kModel);
  ToolResult r = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "--incremental-budget", "1KiB", "-o",
                                         "m.circle"},
                         dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--incremental-group, --incremental-budget and --incremental-fused go with --incremental"),
            std::string::npos)
      << r.output;
  r = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "--incremental", "--emit", "tir", "-o", "m.tir2"},
              dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--incremental describes the Circle file written with -o"), std::string::npos) << r.output;
  r = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "--incremental", "--incremental-group", "x+q", "-o",
                              "m.circle"},
              dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("group 'x+q' names 'q', which is not a public input (inputs: x, y)"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.circle"));
  EXPECT_FALSE(std::filesystem::exists(dir / "m.incremental.json"));
}

} // namespace
} // namespace tico::cli_test
