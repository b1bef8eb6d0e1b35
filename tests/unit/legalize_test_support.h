// Shared helpers of the circle-legalize pass tests: the lowering, standard and legalization
// plugins loaded together (as tico-run loads them), graphs parsed against the registry's
// schemas (which hold the circle:: ops), and one-pass runs that verify the graph afterwards.
#pragma once

#include "lowering_test_support.h"

#include "tico/ir/text.h"

namespace tico::test {

struct LegalizePlugins {
  Registry registry;
  PluginSet plugins;
};

inline const Registry &legalizeRegistry() {
  static LegalizePlugins *loaded = [] {
    auto *p = new LegalizePlugins();
    const std::string dir = TICO_PLUGIN_DIR;
    p->plugins.load(dir + "/libtico-pt2.so", p->registry); // the PyTorch op table
    p->plugins.load(dir + "/libtico-circle-lowering.so", p->registry);
    p->plugins.load(dir + "/libtico-std-passes.so", p->registry);
    p->plugins.load(dir + "/libtico-circle-legalize.so", p->registry);
    return p;
  }();
  return loaded->registry;
}

// Parses against the plugin schemas, so circle:: nodes get their defaults and argument names.
inline std::unique_ptr<Graph> parseWithPlugins(const std::string &text) {
  ParseOptions options;
  options.file_name = "test.tir";
  options.schemas = &legalizeRegistry().schemas();
  auto graph = parseGraph(text, options);
  graph->setSchemas(&legalizeRegistry().schemas());
  return graph;
}

// Runs the registered pass `name` once; verifies the graph and returns whether it changed.
inline bool runLegalizePass(Graph &graph, const std::string &name) {
  const Registered<PassSpec> *spec = legalizeRegistry().findPass(name);
  if (!spec)
    throw Error("no pass '" + name + "'");
  auto pass = spec->spec.create(Options::resolve(name, spec->spec.options, {}));
  PassContext context(legalizeRegistry());
  bool changed = pass->run(graph, context);
  graph.verify();
  return changed;
}

inline CircleModel lowerWithPlugins(const Graph &graph, const LowerOptions &options = {}) {
  return serializeGraph(graph, legalizeRegistry(), options);
}

// The first node applying `op`, or null.
inline const Node *findOp(const Graph &graph, const std::string &op) {
  OpKey key = OpKey::parseOrThrow(op);
  for (const auto &n : graph.nodes())
    if (n->op() == key)
      return n.get();
  return nullptr;
}

} // namespace tico::test
