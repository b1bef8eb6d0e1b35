// Creating nodes in the middle of a graph, for rewrites.
//
// A rewrite describes what it inserts as op + arguments; the builder places each new node
// before one insertion point (null: at the end of the graph), matches the arguments to the op's
// schema (defaults filled, see Graph::createNode), types the outputs, and names the node after
// a prefix (usually the name of the node being rewritten) so that the printed graph shows where
// every new node came from. Names are `prefix + suffix`; the node-creating calls without a
// suffix use "_<op name>" ("conv1_permute").
//
// Outputs are typed one of two ways: by the type rules plugins registered (tico/rewrite/
// type_rule.h; needs a builder made with the registry) or by the caller giving the types.
// Constant helpers make free graph constants; the *OrView helpers fold a layout op on a
// constant into a strided view of the same storage (no copy, no node).
#pragma once

#include "tico/ir/graph.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tico {
class Registry;
} // namespace tico

namespace tico::rewrite {

// Argument shorthands: b.make("aten::add.Tensor", {A(x), A(1.0)}).
inline Argument A(Value *v) { return Argument::value(v); }
inline Argument A(int64_t v) { return Argument::integer(v); }
inline Argument A(int v) { return Argument::integer(v); }
inline Argument A(double v) { return Argument::real(v); }
inline Argument A(bool v) { return Argument::boolean(v); }
inline Argument Ints(std::vector<int64_t> v) { return Argument::ints(std::move(v)); }
inline NamedArg kw(std::string name, Argument value) { return NamedArg{std::move(name), std::move(value)}; }

class Builder {
public:
  // A builder whose rule-typed calls use the type rules of `types` (a registry plugins filled).
  Builder(Graph &graph, const Registry &types, Node *before, std::string prefix);
  // A builder for explicitly typed nodes and constants only: rule-typed calls throw.
  Builder(Graph &graph, Node *before, std::string prefix);

  Graph &graph() { return graph_; }
  const std::string &prefix() const { return prefix_; }
  Node *insertionPoint() const { return before_; }
  void setInsertionPoint(Node *before) { before_ = before; }
  // Called with every node the builder creates (the rewrite driver queues them).
  void setOnCreate(std::function<void(Node *)> on_create) { on_create_ = std::move(on_create); }

  // ---- typed by the registered type rules (name: prefix + "_" + op name) ----

  // Creates `op` (any spelling OpKey::parse accepts) with outputs typed by its type rule.
  // Throws tico::Error naming the op and the reason when no rule types it (the graph is left
  // as it was). `num_outputs` is needed only for ops returning Tensor[].
  Node *node(const std::string &op, std::vector<NamedArg> args, std::size_t num_outputs = 0);
  // One-output forms.
  Value *make(const std::string &op, std::vector<Argument> args);
  Value *make(const std::string &op, std::vector<NamedArg> args);

  Value *add(Argument a, Argument b) { return make("aten::add.Tensor", {std::move(a), std::move(b)}); }
  Value *sub(Argument a, Argument b) { return make("aten::sub.Tensor", {std::move(a), std::move(b)}); }
  Value *mul(Argument a, Argument b) { return make("aten::mul.Tensor", {std::move(a), std::move(b)}); }
  Value *div(Argument a, Argument b) { return make("aten::div.Tensor", {std::move(a), std::move(b)}); }
  Value *permute(Value *x, std::vector<int64_t> perm) { return make("aten::permute.default", {A(x), Ints(std::move(perm))}); }
  // aten::_to_copy to `dtype` (always a new node).
  Value *cast(Value *x, DType dtype);
  // A node of the SymInt `x.size(dim)`, with its expression and hint.
  Value *symSize(Value *x, int64_t dim);

  // ---- explicitly typed ----

  // `op` with one output of the given type, named prefix + "_" + op name.
  Value *typed(const std::string &op, std::vector<NamedArg> args, DType dtype, Shape shape);
  // `op` with the given outputs, named prefix + suffix.
  Node *node(const OpKey &op, std::vector<NamedArg> args, std::vector<TensorTypeSpec> outputs,
             const std::string &suffix);
  // Positional arguments, one tensor output of the given type, named prefix + suffix.
  Node *node(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape, const std::string &suffix);
  Value *value(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape, const std::string &suffix) {
    return node(op, std::move(args), dtype, std::move(shape), suffix)->output();
  }

  // A size list for `target` as view/reshape/expand take it: static dims as ints; symbolic
  // dims as -1 (when `allow_infer` and only one is symbolic) or as sym_size of a dim with the
  // same expression in one of `sources`. nullopt when a symbolic dim has no source.
  std::optional<Argument> sizes(const Shape &target, const std::vector<Value *> &sources, bool allow_infer = true);
  // reshape(x, target) with sizes() for the size list; null when the sizes cannot be built.
  Value *reshape(Value *x, const Shape &target, const std::vector<Value *> &extra_sources = {});
  // reshape(x, target) with an int list (at most one symbolic dim, written -1; more throw),
  // named prefix + suffix.
  Value *reshapeTo(Value *x, const Shape &target, const std::string &suffix);
  // expand(x, target): dims equal to x's aligned dim are written -1.
  Value *expand(Value *x, const Shape &target, const std::vector<Value *> &extra_sources = {});
  // aten::_to_copy to `dtype`, named prefix + suffix; `x` itself when it already has it.
  Value *castIfNeeded(Value *x, DType dtype, const std::string &suffix);

  // ---- layout ops that fold into views of constants (name: prefix + suffix) ----

  // aten::permute of `v`, or a permuted view when `v` is a constant.
  Value *permuteOrView(Value *v, const std::vector<int64_t> &perm, const std::string &suffix);
  // aten::slice.Tensor(v, dim, start, end, step), or a view of a constant.
  Value *sliceOrView(Value *v, int64_t dim, int64_t start, int64_t end, int64_t step, const std::string &suffix);
  // aten::unsqueeze / aten::squeeze.dims, or views of a constant.
  Value *unsqueezeOrView(Value *v, int64_t dim, const std::string &suffix);
  Value *squeezeOrView(Value *v, int64_t dim, const std::string &suffix);

  // ---- constants (free constants of the graph, named prefix + suffix) ----

  Value *constant(std::shared_ptr<const TensorData> data, const std::string &suffix);
  // A rank-0 constant of `dtype` holding `value` (16-bit floats rounded to nearest even).
  Value *scalarConstant(DType dtype, double value, const std::string &suffix);

private:
  Graph &graph_;
  const Registry *types_;
  Node *created(Node *node);

  Node *before_;
  std::string prefix_;
  std::function<void(Node *)> on_create_;
};

// ---- strided views of constant data (same Storage, no copy) ----

std::shared_ptr<const TensorData> permutedView(const TensorData &data, const std::vector<int64_t> &perm);
std::shared_ptr<const TensorData> slicedView(const TensorData &data, int64_t dim, int64_t start, int64_t end,
                                             int64_t step);
std::shared_ptr<const TensorData> unsqueezedView(const TensorData &data, int64_t dim);
std::shared_ptr<const TensorData> squeezedView(const TensorData &data, int64_t dim);

Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm);
std::vector<int64_t> inversePermutation(const std::vector<int64_t> &perm);

} // namespace tico::rewrite
