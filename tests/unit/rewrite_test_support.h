// Graphs and a registry with type rules for the rewrite-toolkit tests.
#pragma once

#include "tico/ir/graph.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <functional>
#include <memory>
#include <string>

namespace tico::rewrite_test {

inline const Provenance kTestRules{"test-rules", "1.0", "<test>"};

inline Value *input(Graph &g, const std::string &name, Shape shape, DType dtype = DType::Float32) {
  return g.addInput(InputKind::User, name, dtype, std::move(shape));
}

inline void output(Graph &g, Value *v) { g.addOutput(GraphOutput{OutputKind::User, Argument::value(v), ""}); }

// A one-input op typed like its input (neg, relu, exp, abs).
inline Node *unary(Graph &g, const std::string &op, Value *x, Node *before = nullptr) {
  return g.createNode(OpKey("aten", op, "default"), {Argument::value(x)}, x->dtype(), x->shape(), before, op);
}

// A registry whose only type rules give unary ops their input's type, and sym_size its dim.
inline std::unique_ptr<Registry> unaryRuleRegistry() {
  auto registry = std::make_unique<Registry>();
  for (const char *op : {"aten::neg", "aten::relu", "aten::exp", "aten::abs"})
    registry->addTypeRule({op,
                           [](const Node &node, std::string *) -> std::optional<std::vector<TensorTypeSpec>> {
                             const Value *x = node.input(0);
                             return std::vector<TensorTypeSpec>{{ValueKind::Tensor, x->dtype(), x->shape(), {}}};
                           }},
                          kTestRules);
  // sym_size.int: the SymInt of one dim, its value carried as the single dim of its type.
  registry->addTypeRule({"aten::sym_size",
                         [](const Node &node, std::string *) -> std::optional<std::vector<TensorTypeSpec>> {
                           const Value *x = node.input(0);
                           const Dim &d = x->shape().at(static_cast<std::size_t>(node.arg(1).asInt()));
                           return std::vector<TensorTypeSpec>{{ValueKind::SymInt, DType::Int64, {d}, {}}};
                         }},
                        kTestRules);
  return registry;
}

// The message of the tico::Error `f` throws ("<no error>" when it throws none).
inline std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

inline std::vector<std::string> opNames(const Graph &g) {
  std::vector<std::string> out;
  for (const auto &n : g.nodes())
    out.push_back(n->op().name);
  return out;
}

} // namespace tico::rewrite_test
