// The runtime ABI: registration and lookup (provenance, conflicts, "did you mean"), the bundled
// runtime `builtin` and the test runtime through PluginSet, and `tico-circle run --runtime`
// selecting a runtime (builtin, the test runtime from --plugin, an unknown name).
#include "circle_pass_test_support.h"
#include "cli_test_support.h"

#include "tico/circle/writer.h"
#include "tico/io/npy.h"
#include "tico/runtime/runtime.h"

namespace tico::test {
namespace {

using circle::BuiltinOperator;
using cli_test::runTool;
using cli_test::ScratchDir;

const std::string kTestRuntimePlugin = std::string(TICO_TEST_PLUGIN_DIR) + "/libtico-test-runtime.so";
const std::string kBuiltinRuntimePlugin = std::string(TICO_PLUGIN_DIR) + "/libtico-builtin-runtime.so";

// A runtime that is registered but never run: the registry tests only look it up.
class EchoRuntime final : public Runtime {
public:
  std::unique_ptr<PreparedModel> prepare(std::shared_ptr<const CircleModel>) override {
    throw Error("this registry-test runtime runs nothing");
  }
};

RuntimeSpec echoSpec(const std::string &name) {
  return {name, "echo", {}, [](const Options &) { return std::make_unique<EchoRuntime>(); }};
}

TEST(RuntimeRegistry, RegisteredRuntimesAreFoundByNameWithProvenance) {
  Registry registry;
  registry.addRuntime(echoSpec("echo"), Provenance{"p", "1.0", "/p.so"});
  ASSERT_NE(registry.findRuntime("echo"), nullptr);
  EXPECT_EQ(registry.findRuntime("echo")->from.str(), "p 1.0 (/p.so)");
  EXPECT_EQ(registry.findRuntime("ech"), nullptr);
  EXPECT_EQ(registry.runtimeNames(), std::vector<std::string>{"echo"});
  EXPECT_EQ(&registry.requireRuntime("echo"), registry.findRuntime("echo"));
}

TEST(RuntimeRegistry, UnknownNameListsTheRuntimesWithAHint) {
  Registry registry;
  registry.addRuntime(echoSpec("echo"), Provenance{"p", "1.0", "/p.so"});
  registry.addRuntime(echoSpec("builtin"), Provenance{"q", "1.0", "/q.so"});
  const std::string message = errorOf([&] { registry.requireRuntime("bultin"); });
  EXPECT_TRUE(contains(message, "unknown runtime 'bultin' (did you mean 'builtin'?); loaded runtimes: builtin, echo"))
      << message;
  Registry empty;
  EXPECT_TRUE(contains(errorOf([&] { empty.requireRuntime("builtin"); }), "no runtime plugin is loaded"));
}

TEST(RuntimeRegistry, DuplicateNamesAndIncompleteSpecsAreRefused) {
  Registry registry;
  registry.addRuntime(echoSpec("echo"), Provenance{"p", "1.0", "/p.so"});
  EXPECT_TRUE(contains(errorOf([&] { registry.addRuntime(echoSpec("echo"), Provenance{"q", "2.0", "/q.so"}); }),
                       "runtime 'echo' is registered by 'p 1.0 (/p.so)' and 'q 2.0 (/q.so)'"));
  EXPECT_TRUE(contains(errorOf([&] { registry.addRuntime({"bare", "", {}, nullptr}, Provenance{"q"}); }),
                       "runtime 'bare' (from 'q') has no factory function"));
  EXPECT_TRUE(contains(errorOf([&] { registry.addRuntime(echoSpec("a b"), Provenance{"q"}); }),
                       "runtime name 'a b' (from 'q') is invalid"));

  Registry staged;
  staged.addRuntime(echoSpec("echo"), Provenance{"r", "3.0", "/r.so"});
  staged.addRuntime(echoSpec("other"), Provenance{"r", "3.0", "/r.so"});
  EXPECT_TRUE(contains(errorOf([&] { registry.merge(staged); }), "runtime 'echo' is registered by"));
  EXPECT_EQ(registry.findRuntime("other"), nullptr) << "a failed merge adds nothing";
}

// x -> ADD(x, c) -> NEG -> y, float32 [2, 3].
CircleModel addNegModel() {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2, 3});
  const int32_t c = b.constant("c", f32({2, 3}, {1, 2, 3, 4, 5, 6}));
  const int32_t t = b.tensor("t", DType::Float32, {2, 3});
  const int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ADD, {x, c}, {t}, addOptions());
  b.op(BuiltinOperator::NEG, {t}, {y});
  b.output(y);
  return b.model();
}

const std::vector<float> kX = {0.5f, -1, 2, 0, 3.25f, -4};
const std::vector<float> kExpected = {-1.5f, -1, -5, -4, -8.25f, -2};

TEST(RuntimeAbi, PluginsRegisterTheirRuntimesAndRunModels) {
  Registry registry;
  PluginSet plugins;
  plugins.load(kBuiltinRuntimePlugin, registry);
  plugins.load(kTestRuntimePlugin, registry);
  EXPECT_EQ(registry.runtimeNames(), (std::vector<std::string>{"builtin", "test-elementwise"}));
  EXPECT_EQ(registry.findRuntime("test-elementwise")->from.plugin, "test-runtime");
  EXPECT_EQ(registry.findRuntime("builtin")->from.plugin, "builtin-runtime");

  auto model = std::make_shared<const CircleModel>(addNegModel());
  for (const std::string name : {"builtin", "test-elementwise"}) {
    auto runtime = registry.requireRuntime(name).spec.create(Options{});
    auto prepared = runtime->prepare(model);
    ASSERT_EQ(prepared->inputs().size(), 1u) << name;
    EXPECT_EQ(prepared->inputs()[0].name, "x");
    EXPECT_EQ(prepared->inputs()[0].shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(prepared->outputs()[0].name, "y");
    auto outputs = prepared->run({f32({2, 3}, kX)});
    ASSERT_EQ(outputs.size(), 1u) << name;
    expectShape(*outputs[0], {2, 3});
    EXPECT_EQ(valuesOf<float>(*outputs[0]), kExpected) << name;
  }
}

class RunWithRuntime : public ::testing::Test {
protected:
  void SetUp() override {
    writeCircleFile(addNegModel(), dir / "m.circle");
    writeNpy(dir / "x.npy", *f32({2, 3}, kX));
  }
  cli_test::ToolResult run(std::vector<std::string> extra) {
    std::vector<std::string> args{"run", "m.circle", "--input", "x.npy", "--output-dir", "out"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runTool(TICO_CIRCLE_PATH, args, dir.path());
  }
  ScratchDir dir;
};

TEST_F(RunWithRuntime, BuiltinIsTheDefaultAndCanBeNamed) {
  for (const std::vector<std::string> extra : {std::vector<std::string>{}, {"--runtime", "builtin"}}) {
    const auto r = run(extra);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(valuesOf<float>(*readNpy(dir / "out/out0.npy")), kExpected);
    std::filesystem::remove_all(dir / "out");
  }
}

TEST_F(RunWithRuntime, APluginRuntimeIsSelectedAndItsResultsComeBack) {
  const auto r = run({"--runtime", "test-elementwise", "--plugin", kTestRuntimePlugin});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "wrote 1 outputs to out")) << r.output;
  EXPECT_EQ(valuesOf<float>(*readNpy(dir / "out/out0.npy")), kExpected);

  // The test runtime, not the interpreter, ran: it refuses what it does not know, naming itself.
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2, 3});
  const int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ABS, {x}, {y});
  b.output(y);
  writeCircleFile(b.model(), dir / "abs.circle");
  const auto refused = runTool(TICO_CIRCLE_PATH,
                               {"run", "abs.circle", "--input", "x.npy", "--output-dir", "abs", "--runtime",
                                "test-elementwise", "--plugin", kTestRuntimePlugin},
                               dir.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_TRUE(contains(refused.output, "the test runtime test-elementwise cannot run ABS")) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "abs/out0.npy"));
}

TEST_F(RunWithRuntime, AnUnknownRuntimeIsAnErrorListingTheKnownOnes) {
  const auto r = run({"--runtime", "nope"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "tico-circle: error: unknown runtime 'nope'; loaded runtimes: builtin")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out/out0.npy"));

  const auto hinted = run({"--runtime", "test-elementwis", "--plugin", kTestRuntimePlugin});
  EXPECT_EQ(hinted.exit_code, 2) << hinted.output;
  EXPECT_TRUE(contains(hinted.output, "unknown runtime 'test-elementwis' (did you mean 'test-elementwise'?); "
                                      "loaded runtimes: builtin, test-elementwise"))
      << hinted.output;
}

} // namespace
} // namespace tico::test
