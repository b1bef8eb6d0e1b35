// Helpers shared by the circle-legalize passes: node matching, graph surgery, and zero-copy
// constant views for rearranged weights.
#pragma once

#include "tico/ir/graph.h"
#include "tico/pass/pass.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico::legalize {

// Whether `node` applies one of `ops` (canonical "ns::name.overload" text).
bool isOp(const Node &node, std::initializer_list<std::string_view> ops);
bool isOp(const Value *value, std::initializer_list<std::string_view> ops);

// The nodes in order, as a snapshot that survives erasing and inserting while walking.
std::vector<Node *> snapshot(Graph &graph);

// Whether a value is read by anything (a node or a graph output).
bool isUsed(const Graph &graph, const Value *value);

// `dim` in [-rank, rank) -> [0, rank); nullopt when out of range.
std::optional<int64_t> wrapDim(int64_t dim, int64_t rank);

// An int list argument (or one int broadcast) of `n` elements; nullopt when symbolic or of
// another length.
std::optional<std::vector<int64_t>> staticInts(const Argument &arg, std::size_t n);

Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm);
std::vector<int64_t> inversePermutation(const std::vector<int64_t> &perm);

// Builds nodes before one anchor node, named after a base.
class Builder {
public:
  Builder(Graph &graph, Node *before, std::string base) : graph_(graph), before_(before), base_(std::move(base)) {}

  Graph &graph() { return graph_; }
  Node *node(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape, const std::string &suffix);
  Value *value(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape, const std::string &suffix) {
    return node(op, std::move(args), dtype, std::move(shape), suffix)->output();
  }
  // With named arguments (needed for keyword-only ones) and several outputs.
  Node *node(const OpKey &op, std::vector<NamedArg> args, std::vector<TensorTypeSpec> outputs,
             const std::string &suffix);

  // aten::permute of `v`, or a permuted view when `v` is a constant (no copy, no node).
  Value *permute(Value *v, const std::vector<int64_t> &perm, const std::string &suffix);
  // aten::slice.Tensor(v, dim, start, end, step), or a view of a constant.
  Value *slice(Value *v, int64_t dim, int64_t start, int64_t end, int64_t step, const std::string &suffix);
  // aten::unsqueeze / aten::squeeze.dims, or views of a constant.
  Value *unsqueeze(Value *v, int64_t dim, const std::string &suffix);
  Value *squeeze(Value *v, int64_t dim, const std::string &suffix);
  // aten::reshape to `shape`, which may have at most one symbolic dim (written -1).
  Value *reshape(Value *v, const Shape &shape, const std::string &suffix);
  // aten::_to_copy to `dtype` (or `v` itself when it already has it).
  Value *cast(Value *v, DType dtype, const std::string &suffix);
  // A free constant.
  Value *constant(std::shared_ptr<const TensorData> data, const std::string &suffix);

private:
  Graph &graph_;
  Node *before_;
  std::string base_;
};

// Strided views of constant data (same Storage, no copy).
std::shared_ptr<const TensorData> permutedView(const TensorData &data, const std::vector<int64_t> &perm);
std::shared_ptr<const TensorData> slicedView(const TensorData &data, int64_t dim, int64_t start, int64_t end,
                                             int64_t step);
std::shared_ptr<const TensorData> unsqueezedView(const TensorData &data, int64_t dim);
std::shared_ptr<const TensorData> squeezedView(const TensorData &data, int64_t dim);

// Replaces every use of `from` with `to` and erases `node` when it became dead.
void replaceAndErase(Graph &graph, Node *node, Value *from, Value *to);

// A PassSpec for a pass without options.
template <typename P> PassSpec simplePass(std::string name, std::string summary) {
  PassSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.create = [](const Options &) -> std::unique_ptr<Pass> { return std::make_unique<P>(); };
  return spec;
}

} // namespace tico::legalize
