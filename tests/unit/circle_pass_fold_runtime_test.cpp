// fold-constants computes through the runtime ABI: the values it stores are bit for bit what
// the runtime computes when the operator stays, the `runtime` option selects whose kernels
// (the test runtime folds only what it can run), and the exactness rules keep operators whose
// result a runtime would wrap, saturate or reinterpret.
#include "circle_pass_test_support.h"

#include "tico/interpreter/interpreter.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tico::test {
namespace {

using circle::BuiltinOperator;

struct FoldPlugins {
  Registry registry;
  PluginSet plugins;
};

// circle-passes with both the builtin runtime and the test runtime (tests/plugins).
const Registry &registryWithTestRuntime() {
  static FoldPlugins *loaded = [] {
    auto *p = new FoldPlugins();
    p->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-circle-passes.so", p->registry);
    p->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-builtin-runtime.so", p->registry);
    p->plugins.load(std::string(TICO_TEST_PLUGIN_DIR) + "/libtico-test-runtime.so", p->registry);
    return p;
  }();
  return loaded->registry;
}

bool foldWith(CircleModel &model, const Registry &registry, const std::map<std::string, OptionValue> &options) {
  const auto *entry = registry.findCirclePass("fold-constants");
  auto pass = entry->spec.create(Options::resolve("fold-constants", entry->spec.options, options));
  PassContext context(registry);
  return pass->run(model, context);
}

// x + op(constants...): the operator under test feeds a runtime ADD, so it is not a graph output.
struct OneFoldCandidate {
  ModelBuilder b;
  DType dtype;
  std::vector<int32_t> shape;
  int32_t x = -1, result = -1;
  OneFoldCandidate(DType dtype_, std::vector<int32_t> shape_) : dtype(dtype_), shape(std::move(shape_)) {
    x = b.input("x", dtype, shape);
    result = b.tensor("r", dtype, shape);
  }
  CircleModel finish(BuiltinOperator code, std::vector<int32_t> inputs, circle::BuiltinOptionsUnion options = {}) {
    const int32_t y = b.tensor("y", dtype, shape);
    b.op(code, std::move(inputs), {result}, std::move(options));
    b.op(BuiltinOperator::ADD, {x, result}, {y}, addOptions());
    b.output(y);
    return b.model();
  }
};

std::vector<std::byte> bytesOf(const TensorData &t) { return t.contiguousBytes(); }

TEST(CirclePassFoldOnRuntime, FoldedValuesAreExactlyWhatTheRuntimeComputes) {
  // A FULLY_CONNECTED long enough for the interpreter's blocked, vectorised matrix kernel: the
  // folded constant must have its rounding, not that of some other summation order.
  const int64_t rows = 3, depth = 67, units = 5;
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {3, 5});
  const auto cx_values = randomFloats(rows * depth, 1), w_values = randomFloats(units * depth, 2),
             bias_values = randomFloats(units, 3);
  const int32_t cx = b.constant("cx", f32({rows, depth}, cx_values));
  const int32_t w = b.constant("w", f32({units, depth}, w_values));
  const int32_t bias = b.constant("bias", f32({units}, bias_values));
  const int32_t f = b.tensor("f", DType::Float32, {3, 5});
  const int32_t y = b.tensor("y", DType::Float32, {3, 5});
  b.op(BuiltinOperator::FULLY_CONNECTED, {cx, w, bias}, {f}, fcOptions(circle::ActivationFunctionType::RELU));
  b.op(BuiltinOperator::ADD, {x, f}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  ASSERT_TRUE(runCirclePass(m, "fold-constants", {{"profile", std::string("heavy")}}));
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ADD});
  const auto &folded = *m.buffers[tensorAt(m, f).buffer].data;

  // The same operator with its first operand as a run-time input, on the interpreter.
  ModelBuilder r;
  const int32_t in = r.input("in", DType::Float32, {3, 67});
  const int32_t rw = r.constant("w", f32({units, depth}, w_values));
  const int32_t rb = r.constant("bias", f32({units}, bias_values));
  const int32_t out = r.tensor("out", DType::Float32, {3, 5});
  r.op(BuiltinOperator::FULLY_CONNECTED, {in, rw, rb}, {out}, fcOptions(circle::ActivationFunctionType::RELU));
  r.output(out);
  const CircleInterpreter interpreter(std::make_shared<const CircleModel>(r.model()));
  const auto expected = interpreter.run({f32({rows, depth}, cx_values)});
  EXPECT_EQ(bytesOf(folded), bytesOf(*expected[0]));
}

TEST(CirclePassFoldOnRuntime, TheRuntimeOptionSelectsWhoseKernelsFold) {
  // c1 * c2 -> NEG -> SQRT: the test runtime runs MUL and NEG but not SQRT.
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2});
  const int32_t c1 = b.constant("c1", f32({2}, {2, 8}));
  const int32_t c2 = b.constant("c2", f32({2}, {-0.5f, -2}));
  const int32_t p = b.tensor("p", DType::Float32, {2});
  const int32_t n = b.tensor("n", DType::Float32, {2});
  const int32_t s = b.tensor("s", DType::Float32, {2});
  const int32_t y = b.tensor("y", DType::Float32, {2});
  b.op(BuiltinOperator::MUL, {c1, c2}, {p}, mulOptions());
  b.op(BuiltinOperator::NEG, {p}, {n});
  b.op(BuiltinOperator::SQRT, {n}, {s});
  b.op(BuiltinOperator::ADD, {x, s}, {y}, addOptions());
  b.output(y);
  const CircleModel original = b.model();

  CircleModel on_test = original;
  EXPECT_TRUE(foldWith(on_test, registryWithTestRuntime(), {{"runtime", std::string("test-elementwise")}}));
  EXPECT_EQ(opCodes(on_test), (std::vector<BuiltinOperator>{BuiltinOperator::SQRT, BuiltinOperator::ADD}));
  EXPECT_EQ(valuesOf<float>(*on_test.buffers[tensorAt(on_test, n).buffer].data), (std::vector<float>{1, 16}));

  CircleModel on_builtin = original;
  EXPECT_TRUE(foldWith(on_builtin, registryWithTestRuntime(), {}));
  EXPECT_EQ(opCodes(on_builtin), std::vector<BuiltinOperator>{BuiltinOperator::ADD});
  EXPECT_EQ(valuesOf<float>(*on_builtin.buffers[tensorAt(on_builtin, s).buffer].data), (std::vector<float>{1, 4}));
}

TEST(CirclePassFoldOnRuntime, AnUnknownRuntimeIsAnErrorNamingTheLoadedOnes) {
  OneFoldCandidate c(DType::Float32, {2});
  const int32_t v = c.b.constant("v", f32({2}, {1, 2}));
  CircleModel m = c.finish(BuiltinOperator::NEG, {v});
  const std::string message =
      errorOf([&] { foldWith(m, registryWithTestRuntime(), {{"runtime", std::string("test-elementwize")}}); });
  EXPECT_TRUE(contains(message, "unknown runtime 'test-elementwize' (did you mean 'test-elementwise'?); loaded "
                                "runtimes: builtin, test-elementwise"))
      << message;
}

TEST(CirclePassFoldOnRuntime, IntegerResultsThatWouldWrapStay) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  for (auto code : {BuiltinOperator::ADD, BuiltinOperator::MUL}) {
    OneFoldCandidate c(DType::Int32, {2});
    const int32_t a = c.b.constant("a", i32({2}, {big, 1}));
    const int32_t k = c.b.constant("k", i32({1}, {2}));
    CircleModel m = c.finish(code, {a, k}, code == BuiltinOperator::ADD ? addOptions() : mulOptions());
    EXPECT_FALSE(runCirclePass(m, "fold-constants")) << circle::EnumNameBuiltinOperator(code);
    EXPECT_EQ(countOps(m, code), code == BuiltinOperator::ADD ? 2u : 1u);
  }
  // The same operator without overflow folds.
  OneFoldCandidate c(DType::Int32, {2});
  const int32_t a = c.b.constant("a", i32({2}, {big - 2, 1}));
  const int32_t k = c.b.constant("k", i32({1}, {2}));
  CircleModel m = c.finish(BuiltinOperator::ADD, {a, k}, addOptions());
  EXPECT_TRUE(runCirclePass(m, "fold-constants"));
  EXPECT_EQ(valuesOf<int32_t>(*m.buffers[tensorAt(m, c.result).buffer].data), (std::vector<int32_t>{big, 3}));

  OneFoldCandidate neg(DType::Int32, {2});
  const int32_t lowest = neg.b.constant("lowest", i32({2}, {std::numeric_limits<int32_t>::min(), 4}));
  CircleModel negated = neg.finish(BuiltinOperator::NEG, {lowest});
  EXPECT_FALSE(runCirclePass(negated, "fold-constants"));
}

TEST(CirclePassFoldOnRuntime, CastsOutOfRangeAndOfNonFiniteValuesStay) {
  auto castModel = [](std::vector<float> values) {
    OneFoldCandidate c(DType::Int32, {2});
    const int32_t v = c.b.constant("v", f32({2}, values));
    circle::CastOptionsT options;
    options.in_data_type = circle::TensorType::FLOAT32;
    options.out_data_type = circle::TensorType::INT32;
    return std::pair{c.finish(BuiltinOperator::CAST, {v}, ModelBuilder::options(options)), c.result};
  };
  for (float bad : {3e9f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    auto [m, result] = castModel({1.5f, bad});
    EXPECT_FALSE(runCirclePass(m, "fold-constants")) << bad;
    EXPECT_EQ(countOps(m, BuiltinOperator::CAST), 1u);
  }
  auto [m, result] = castModel({-2.75f, 7.5f});
  EXPECT_TRUE(runCirclePass(m, "fold-constants"));
  EXPECT_EQ(valuesOf<int32_t>(*m.buffers[tensorAt(m, result).buffer].data), (std::vector<int32_t>{-2, 7}));
}

TEST(CirclePassFoldOnRuntime, NegativeGatherIndicesStay) {
  for (int32_t index : {-1, 1}) {
    OneFoldCandidate c(DType::Float32, {2});
    const int32_t params = c.b.constant("params", f32({3}, {10, 20, 30}));
    const int32_t indices = c.b.constant("indices", i32({2}, {index, 2}));
    circle::GatherOptionsT options;
    CircleModel m = c.finish(BuiltinOperator::GATHER, {params, indices}, ModelBuilder::options(options));
    EXPECT_EQ(runCirclePass(m, "fold-constants"), index >= 0) << index;
    if (index >= 0)
      EXPECT_EQ(valuesOf<float>(*m.buffers[tensorAt(m, c.result).buffer].data), (std::vector<float>{20, 30}));
  }
}

} // namespace
} // namespace tico::test
