// Shared helpers of the Circle-pass tests: the circle-passes plugin (and the builtin runtime
// fold-constants evaluates with) loaded the way tico-run loads them, one-pass (and one-stage) runs that verify the model afterwards, structural queries
// (which operators are left), and the before/after check: the model is run on the built-in
// interpreter with deterministic inputs before and after the rewrite and the outputs must agree
// within 1e-6 (relative to magnitude), i.e. a rewrite may change float rounding only.
#pragma once

#include "interp_test_support.h"

#include "tico/circle/circle_pass.h"
#include "tico/circle/verify.h"
#include "tico/pipeline/driver.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace tico::test {

struct CirclePassPlugins {
  Registry registry;
  PluginSet plugins;
};

inline const Registry &circlePassRegistry() {
  static CirclePassPlugins *loaded = [] {
    auto *p = new CirclePassPlugins();
    p->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-circle-passes.so", p->registry);
    // fold-constants evaluates with the runtime `builtin`.
    p->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-builtin-runtime.so", p->registry);
    return p;
  }();
  return loaded->registry;
}

// Errors of the Circle verifier (warnings are ignored: passes leave unused tensors to compact).
inline std::string verifierErrors(const CircleModel &model) {
  std::string out;
  for (const auto &d : verifyCircleModel(model, {.warnings = false}))
    if (d.severity == CircleSeverity::Error)
      out += d.str() + "\n";
  return out;
}

// Runs the registered Circle pass `name` once with `options`; checks that the result verifies
// and returns whether the pass reported a change.
inline bool runCirclePass(CircleModel &model, const std::string &name,
                          const std::map<std::string, OptionValue> &options = {}) {
  const auto *entry = circlePassRegistry().findCirclePass(name);
  if (!entry)
    throw Error("no Circle pass '" + name + "'");
  auto pass = entry->spec.create(Options::resolve(name, entry->spec.options, options));
  PassContext context(circlePassRegistry());
  bool changed = pass->run(model, context);
  EXPECT_EQ(verifierErrors(model), "") << "after " << name;
  return changed;
}

// Builtin codes of the operators of `subgraph`, in execution order.
inline std::vector<circle::BuiltinOperator> opCodes(const CircleModel &model, uint32_t subgraph = 0) {
  std::vector<circle::BuiltinOperator> out;
  for (const auto &op : model.subgraphs[subgraph].operators)
    out.push_back(static_cast<circle::BuiltinOperator>(model.operator_codes[op.opcode_index].builtin_code));
  return out;
}

inline std::size_t countOps(const CircleModel &model, circle::BuiltinOperator code, uint32_t subgraph = 0) {
  auto codes = opCodes(model, subgraph);
  return static_cast<std::size_t>(std::count(codes.begin(), codes.end(), code));
}

// The operators of `subgraph` applying `code`.
inline std::vector<const CircleOperator *> opsOf(const CircleModel &model, circle::BuiltinOperator code,
                                                 uint32_t subgraph = 0) {
  std::vector<const CircleOperator *> out;
  for (const auto &op : model.subgraphs[subgraph].operators)
    if (model.operator_codes[op.opcode_index].builtin_code == static_cast<int32_t>(code))
      out.push_back(&op);
  return out;
}

inline const CircleTensor &tensorAt(const CircleModel &model, int32_t index, uint32_t subgraph = 0) {
  return model.subgraphs[subgraph].tensors.at(index);
}

// Deterministic inputs for every input of subgraph 0 (float32 in [-2, 2), int32, int64 and
// uint8 in [0, 4), bool alternating by sign).
inline std::vector<TensorPtr> deterministicInputs(const CircleModel &model, uint32_t seed = 7) {
  std::vector<TensorPtr> feeds;
  const auto &g = model.subgraphs[0];
  for (int32_t index : g.inputs) {
    const CircleTensor &t = g.tensors[index];
    std::vector<int64_t> shape(t.shape.begin(), t.shape.end());
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    auto values = randomFloats(static_cast<std::size_t>(count), seed++);
    if (t.type == circle::TensorType::INT32) {
      std::vector<int32_t> ints;
      for (float v : values)
        ints.push_back(static_cast<int32_t>((v + 1.0f) * 2.0f));
      feeds.push_back(i32(shape, ints));
    } else if (t.type == circle::TensorType::INT64) {
      std::vector<int64_t> ints;
      for (float v : values)
        ints.push_back(static_cast<int64_t>((v + 1.0f) * 2.0f));
      feeds.push_back(i64(shape, ints));
    } else if (t.type == circle::TensorType::UINT8) {
      std::vector<uint8_t> ints;
      for (float v : values)
        ints.push_back(static_cast<uint8_t>((v + 1.0f) * 2.0f));
      feeds.push_back(tensorOf(DType::UInt8, shape, ints));
    } else if (t.type == circle::TensorType::BOOL) {
      std::vector<uint8_t> flags;
      for (float v : values)
        flags.push_back(v > 0.0f ? 1 : 0);
      feeds.push_back(boolean(shape, flags));
    } else {
      for (float &v : values)
        v *= 2.0f;
      feeds.push_back(f32(shape, values));
    }
  }
  return feeds;
}

// Largest |a-b| / (1 + |b|) over all outputs; outputs must have equal dtypes and shapes.
inline double maxRelativeDifference(const std::vector<TensorPtr> &after, const std::vector<TensorPtr> &before) {
  EXPECT_EQ(after.size(), before.size());
  double worst = 0;
  for (std::size_t o = 0; o < std::min(after.size(), before.size()); ++o) {
    EXPECT_EQ(after[o]->dtype, before[o]->dtype) << "output " << o;
    EXPECT_EQ(after[o]->sizes, before[o]->sizes) << "output " << o;
    if (before[o]->dtype != DType::Float32) {
      EXPECT_EQ(after[o]->contiguousBytes(), before[o]->contiguousBytes()) << "output " << o;
      continue;
    }
    auto a = valuesOf<float>(*after[o]);
    auto b = valuesOf<float>(*before[o]);
    if (a.size() != b.size())
      return INFINITY;
    for (std::size_t i = 0; i < a.size(); ++i)
      worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])) / (1.0 + std::fabs(double(b[i]))));
  }
  return worst;
}

// Runs `model` on the interpreter, applies `rewrite`, runs it again and expects the same outputs
// within 1e-6. Returns the rewritten model's difference for reporting.
template <typename Rewrite> double expectSameOutputs(CircleModel &model, Rewrite &&rewrite, double tolerance = 1e-6) {
  auto inputs = deterministicInputs(model);
  auto before = runModel(std::make_shared<const CircleModel>(model), inputs);
  rewrite(model);
  auto after = runModel(std::make_shared<const CircleModel>(model), inputs);
  double diff = maxRelativeDifference(after, before);
  EXPECT_LE(diff, tolerance);
  return diff;
}

// Runs the stages of a manifest file (Circle stages only) on `model`, as tico-run does after
// lowering.
inline bool runCircleManifest(CircleModel &model, const std::string &path) {
  Manifest manifest = Manifest::load(path);
  manifest.validate(circlePassRegistry());
  bool changed = false;
  for (const auto &stage : manifest.stages)
    if (stage.kind == StageKind::Circle)
      changed |= runStage(circlePassRegistry(), stage, model);
  EXPECT_EQ(verifierErrors(model), "") << "after " << path;
  return changed;
}

// Option tables used by the tests.
inline circle::BuiltinOptionsUnion addOptions(circle::ActivationFunctionType act = circle::ActivationFunctionType::NONE) {
  circle::AddOptionsT o;
  o.fused_activation_function = act;
  return ModelBuilder::options(o);
}
inline circle::BuiltinOptionsUnion mulOptions(circle::ActivationFunctionType act = circle::ActivationFunctionType::NONE) {
  circle::MulOptionsT o;
  o.fused_activation_function = act;
  return ModelBuilder::options(o);
}
inline circle::BuiltinOptionsUnion conv2dOptions(circle::ActivationFunctionType act = circle::ActivationFunctionType::NONE,
                                                 circle::Padding padding = circle::Padding::VALID) {
  circle::Conv2DOptionsT o;
  o.padding = padding;
  o.stride_w = o.stride_h = 1;
  o.dilation_w_factor = o.dilation_h_factor = 1;
  o.fused_activation_function = act;
  return ModelBuilder::options(o);
}
inline circle::BuiltinOptionsUnion fcOptions(circle::ActivationFunctionType act = circle::ActivationFunctionType::NONE) {
  circle::FullyConnectedOptionsT o;
  o.fused_activation_function = act;
  return ModelBuilder::options(o);
}
inline circle::BuiltinOptionsUnion transposeOptions() { return ModelBuilder::options(circle::TransposeOptionsT{}); }
inline circle::BuiltinOptionsUnion reshapeOptions(std::vector<int32_t> shape) {
  circle::ReshapeOptionsT o;
  o.new_shape = std::move(shape);
  return ModelBuilder::options(o);
}

} // namespace tico::test
