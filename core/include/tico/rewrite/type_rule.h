// Result-type rules: how the outputs of a node are typed from its arguments.
//
// Plugins register one rule per op (every overload of "ns::name", or one "ns::name.overload")
// with Registrar::addTypeRule; the registry records which plugin provided it and refuses a
// second rule for the same key, naming both providers. The node Builder types the nodes it
// creates with these rules, and passes that type nodes which reached the graph untyped
// (fill-meta-val) look them up the same way, so every plugin sees the same types.
#pragma once

#include "tico/ir/graph.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tico {

class Registry;

// The types of `node`'s outputs, one per output; nullopt when the rule cannot type this node,
// with the reason in `*why` (never null when the registry calls a rule). A SymInt output
// carries its value as the single dim of `shape` (an expression, or a static size, with its
// hint); every other output's `shape` is its tensor shape.
using TypeRule = std::function<std::optional<std::vector<TensorTypeSpec>>(const Node &node, std::string *why)>;

struct TypeRuleSpec {
  std::string op; // "aten::add" (every overload) or "aten::max.dim" (only that overload)
  TypeRule rule;
};

// The output types of `node` from the rule registered for its op: the rule of its exact
// overload when there is one, else the rule of its op name. nullopt, with the reason in *why
// when given, when no rule is registered or the rule cannot type the node.
std::optional<std::vector<TensorTypeSpec>> inferTypes(const Registry &registry, const Node &node,
                                                      std::string *why = nullptr);

// Sets the dtypes and shapes (and the expressions of SymInt outputs) of `node`'s outputs from
// inferTypes. Returns false, leaving the node untouched, when no rule applies or an inferred
// output kind differs from the node's.
bool applyTypes(const Registry &registry, Node &node, std::string *why = nullptr);

} // namespace tico
