// Shared helpers of the serializer, lowering and pass tests: the circle-lowering and std-passes
// plugins loaded the way tico-run loads them, graphs written in the textual IR, and readers
// for the emitted CircleModel.
#pragma once

#include "pt2/torch_op_table.h"
#include "tico/circle/serializer.h"
#include "tico/ir/text.h"
#include "tico/lowering/lowering.h"
#include "tico/plugin/loader.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tico::test {

struct StdPlugins {
  Registry registry;
  PluginSet plugins;
};

// Loaded once and kept for the whole run (plugins are never unloaded).
inline const Registry &stdRegistry() {
  static StdPlugins *loaded = [] {
    auto *p = new StdPlugins();
    const std::string dir = TICO_PLUGIN_DIR;
    p->plugins.load(dir + "/libtico-pt2.so", p->registry); // the PyTorch op table
    p->plugins.load(dir + "/libtico-circle-lowering.so", p->registry);
    p->plugins.load(dir + "/libtico-std-passes.so", p->registry);
    return p;
  }();
  return loaded->registry;
}

inline std::unique_ptr<Graph> parse(const std::string &text) {
  ParseOptions options;
  options.file_name = "test.tir";
  options.schemas = &tico::pt2::torchOpSchemas();
  return parseGraph(text, options);
}

inline CircleModel lower(const Graph &graph, const LowerOptions &options = {}) {
  return serializeGraph(graph, stdRegistry(), options);
}

// Runs the registered pass `name` once with `options`; verifies the graph and returns whether
// it changed.
inline bool runPass(Graph &graph, const std::string &name, const std::map<std::string, OptionValue> &options = {}) {
  const Registered<PassSpec> *spec = stdRegistry().findPass(name);
  if (!spec)
    throw Error("no pass '" + name + "'");
  auto pass = spec->spec.create(Options::resolve(name, spec->spec.options, options));
  PassContext context(stdRegistry());
  bool changed = pass->run(graph, context);
  graph.verify();
  return changed;
}

// How many nodes of `op` the graph has.
inline std::size_t countOps(const Graph &graph, const std::string &op) {
  auto counts = graph.opCounts();
  auto it = counts.find(OpKey::parseOrThrow(op));
  return it == counts.end() ? 0 : it->second;
}

// Builtin operator names of the model's operators, in order.
inline std::vector<std::string> opNames(const CircleModel &model) {
  std::vector<std::string> out;
  for (const auto &op : model.subgraphs.at(0).operators)
    out.push_back(circle::EnumNameBuiltinOperator(
        static_cast<circle::BuiltinOperator>(model.operator_codes.at(op.opcode_index).builtin_code)));
  return out;
}

inline const CircleTensor &tensorAt(const CircleModel &model, int32_t index) {
  return model.subgraphs.at(0).tensors.at(static_cast<std::size_t>(index));
}

// The first operator with builtin `name`; fails the test when there is none.
inline const CircleOperator &firstOp(const CircleModel &model, const std::string &name) {
  auto names = opNames(model);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return model.subgraphs.at(0).operators[i];
  ADD_FAILURE() << "no " << name << " operator";
  static const CircleOperator none;
  return none;
}

// Row-major contents of a constant tensor.
template <typename T> std::vector<T> constantValues(const CircleModel &model, int32_t tensor) {
  const CircleTensor &t = tensorAt(model, tensor);
  const auto &data = model.buffers.at(t.buffer).data;
  if (!data) {
    ADD_FAILURE() << "tensor '" << t.name << "' has no data";
    return {};
  }
  std::vector<std::byte> bytes = data->contiguousBytes();
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!bytes.empty())
    std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

inline std::shared_ptr<const TensorData> f32Data(std::vector<int64_t> sizes, std::vector<float> values) {
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, std::move(sizes), values));
}

// "dense<[0, 1, 2, ...]>" with n increasing floats, for parameters in test graphs.
inline std::string iota(int n) {
  std::string out = "dense<[";
  for (int i = 0; i < n; ++i)
    out += (i ? ", " : "") + std::to_string(i);
  return out + "]>";
}

} // namespace tico::test
