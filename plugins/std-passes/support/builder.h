// Creating typed nodes in the middle of a graph.
//
// A rewrite describes what it inserts as op + arguments; the builder places the node before a
// given node, types its outputs with the rules of type_rules.h, and names it after the node
// being rewritten, so the printed graph shows where each new node came from. Arguments are
// matched to the op's schema by createNode (defaults filled).
#pragma once

#include "tico/ir/graph.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tico::passes {

// Argument shorthands.
inline Argument A(Value *v) { return Argument::value(v); }
inline Argument A(int64_t v) { return Argument::integer(v); }
inline Argument A(int v) { return Argument::integer(v); }
inline Argument A(double v) { return Argument::real(v); }
inline Argument A(bool v) { return Argument::boolean(v); }
inline Argument Ints(std::vector<int64_t> v) { return Argument::ints(std::move(v)); }
inline NamedArg kw(std::string name, Argument value) { return NamedArg{std::move(name), std::move(value)}; }

class Builder {
public:
  // New nodes go before `before` (null: at the end) and are named "<prefix>_<op name>".
  Builder(Graph &graph, Node *before, std::string prefix);

  Graph &graph() { return graph_; }

  // Creates `op` (any spelling OpKey::parse accepts) with outputs typed by the type rules.
  // Throws tico::Error naming the op when no rule types it. `num_outputs` is needed only for
  // ops returning Tensor[].
  Node *node(const std::string &op, std::vector<NamedArg> args, std::size_t num_outputs = 0);
  // One-output form with positional arguments.
  Value *make(const std::string &op, std::vector<Argument> args);
  Value *make(const std::string &op, std::vector<NamedArg> args);
  // Creates `op` with an explicit result type (for ops without a rule, e.g. convolutions).
  Value *typed(const std::string &op, std::vector<NamedArg> args, DType dtype, Shape shape);

  // ---- common ops ----
  Value *add(Argument a, Argument b) { return make("aten::add.Tensor", {std::move(a), std::move(b)}); }
  Value *sub(Argument a, Argument b) { return make("aten::sub.Tensor", {std::move(a), std::move(b)}); }
  Value *mul(Argument a, Argument b) { return make("aten::mul.Tensor", {std::move(a), std::move(b)}); }
  Value *div(Argument a, Argument b) { return make("aten::div.Tensor", {std::move(a), std::move(b)}); }
  Value *permute(Value *x, std::vector<int64_t> perm) { return make("aten::permute.default", {A(x), Ints(std::move(perm))}); }
  Value *cast(Value *x, DType dtype);
  // A node of the SymInt `x.size(dim)`, with its expression and hint.
  Value *symSize(Value *x, int64_t dim);

  // A size list for `target` as view/reshape/expand take it: static dims as ints; symbolic
  // dims as -1 (when `allow_infer` and only one is symbolic) or as sym_size of a dim with the
  // same expression in one of `sources`. nullopt when a symbolic dim has no source.
  std::optional<Argument> sizes(const Shape &target, const std::vector<Value *> &sources, bool allow_infer = true);
  // reshape(x, target) with sizes() for the size list; null when the sizes cannot be built.
  Value *reshape(Value *x, const Shape &target, const std::vector<Value *> &extra_sources = {});
  // expand(x, target): dims equal to x's aligned dim are written -1.
  Value *expand(Value *x, const Shape &target, const std::vector<Value *> &extra_sources = {});

  // A new constant (a free constant of the graph), named after the prefix.
  Value *constant(const std::string &suffix, std::shared_ptr<const TensorData> data);
  Value *scalarConstant(const std::string &suffix, DType dtype, double value);

private:
  Graph &graph_;
  Node *before_;
  std::string prefix_;
};

} // namespace tico::passes
