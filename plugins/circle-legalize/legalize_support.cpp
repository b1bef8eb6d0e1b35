#include "legalize_support.h"

#include <algorithm>

namespace tico::legalize {

bool isOp(const Node &node, std::initializer_list<std::string_view> ops) {
  const std::string key = node.op().str();
  for (std::string_view op : ops)
    if (key == op)
      return true;
  return false;
}

bool isOp(const Value *value, std::initializer_list<std::string_view> ops) {
  return value && value->producer() && isOp(*value->producer(), ops);
}

std::vector<Node *> snapshot(Graph &graph) {
  std::vector<Node *> nodes;
  for (const auto &n : graph.nodes())
    nodes.push_back(n.get());
  return nodes;
}

bool isUsed(const Graph &graph, const Value *value) { return value->hasUsers() || graph.isGraphOutput(value); }

std::optional<int64_t> wrapDim(int64_t dim, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r)
    return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

std::optional<std::vector<int64_t>> staticInts(const Argument &arg, std::size_t n) {
  if (arg.isInt())
    return std::vector<int64_t>(n, arg.asInt());
  if (!arg.isIntList())
    return std::nullopt;
  const auto &v = arg.asInts();
  if (v.size() == n)
    return v;
  if (v.size() == 1)
    return std::vector<int64_t>(n, v[0]);
  return std::nullopt;
}

Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm) {
  Shape out;
  for (int64_t p : perm)
    out.push_back(shape.at(static_cast<std::size_t>(p)));
  return out;
}

std::vector<int64_t> inversePermutation(const std::vector<int64_t> &perm) {
  std::vector<int64_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
}

// ---- constant views --------------------------------------------------------------------------

std::shared_ptr<const TensorData> permutedView(const TensorData &data, const std::vector<int64_t> &perm) {
  auto view = std::make_shared<TensorData>(data);
  view->sizes.clear();
  view->strides.clear();
  for (int64_t p : perm) {
    view->sizes.push_back(data.sizes.at(static_cast<std::size_t>(p)));
    view->strides.push_back(data.strides.at(static_cast<std::size_t>(p)));
  }
  return view;
}

std::shared_ptr<const TensorData> slicedView(const TensorData &data, int64_t dim, int64_t start, int64_t end,
                                             int64_t step) {
  auto view = std::make_shared<TensorData>(data);
  auto d = static_cast<std::size_t>(dim);
  view->storage_offset += start * data.strides.at(d);
  view->sizes[d] = end > start ? (end - start + step - 1) / step : 0;
  view->strides[d] = data.strides[d] * step;
  return view;
}

std::shared_ptr<const TensorData> unsqueezedView(const TensorData &data, int64_t dim) {
  auto view = std::make_shared<TensorData>(data);
  auto d = static_cast<std::size_t>(dim);
  // The stride of a size-1 dim never matters; use the one a contiguous tensor would have.
  int64_t stride = d < data.sizes.size() ? data.strides[d] * data.sizes[d] : 1;
  view->sizes.insert(view->sizes.begin() + dim, 1);
  view->strides.insert(view->strides.begin() + dim, stride);
  return view;
}

std::shared_ptr<const TensorData> squeezedView(const TensorData &data, int64_t dim) {
  auto view = std::make_shared<TensorData>(data);
  view->sizes.erase(view->sizes.begin() + dim);
  view->strides.erase(view->strides.begin() + dim);
  return view;
}

// ---- building --------------------------------------------------------------------------------

Node *Builder::node(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape, const std::string &suffix) {
  return graph_.createNode(op, std::move(args), dtype, std::move(shape), before_, base_ + suffix);
}

Node *Builder::node(const OpKey &op, std::vector<NamedArg> args, std::vector<TensorTypeSpec> outputs,
                    const std::string &suffix) {
  return graph_.createNode(op, std::move(args), std::move(outputs), before_, base_ + suffix);
}

Value *Builder::cast(Value *v, DType dtype, const std::string &suffix) {
  if (v->dtype() == dtype)
    return v;
  TensorTypeSpec out;
  out.dtype = dtype;
  out.shape = v->shape();
  return node(OpKey("aten", "_to_copy"), {NamedArg{"self", Argument::value(v)}, NamedArg{"dtype", Argument::scalarType(dtype)}},
              {out}, suffix)
      ->output();
}

Value *Builder::constant(std::shared_ptr<const TensorData> data, const std::string &suffix) {
  return graph_.addConstant(base_ + suffix, std::move(data));
}

Value *Builder::permute(Value *v, const std::vector<int64_t> &perm, const std::string &suffix) {
  if (v->isConstant())
    return constant(permutedView(*v->constant(), perm), suffix);
  return value(OpKey("aten", "permute"), {Argument::value(v), Argument::ints(perm)}, v->dtype(),
               permuteShape(v->shape(), perm), suffix);
}

Value *Builder::slice(Value *v, int64_t dim, int64_t start, int64_t end, int64_t step, const std::string &suffix) {
  if (v->isConstant())
    return constant(slicedView(*v->constant(), dim, start, end, step), suffix);
  Shape shape = v->shape();
  shape[static_cast<std::size_t>(dim)] = end > start ? (end - start + step - 1) / step : 0;
  return value(OpKey("aten", "slice", "Tensor"),
               {Argument::value(v), Argument::integer(dim), Argument::integer(start), Argument::integer(end),
                Argument::integer(step)},
               v->dtype(), shape, suffix);
}

Value *Builder::unsqueeze(Value *v, int64_t dim, const std::string &suffix) {
  if (v->isConstant())
    return constant(unsqueezedView(*v->constant(), dim), suffix);
  Shape shape = v->shape();
  shape.insert(shape.begin() + dim, Dim(1));
  return value(OpKey("aten", "unsqueeze"), {Argument::value(v), Argument::integer(dim)}, v->dtype(), shape, suffix);
}

Value *Builder::squeeze(Value *v, int64_t dim, const std::string &suffix) {
  if (v->isConstant())
    return constant(squeezedView(*v->constant(), dim), suffix);
  Shape shape = v->shape();
  shape.erase(shape.begin() + dim);
  return value(OpKey("aten", "squeeze", "dims"), {Argument::value(v), Argument::ints({dim})}, v->dtype(), shape,
               suffix);
}

Value *Builder::reshape(Value *v, const Shape &shape, const std::string &suffix) {
  std::vector<int64_t> sizes;
  int symbolic = 0;
  for (const Dim &d : shape) {
    sizes.push_back(d.isSymbolic() ? -1 : d.value());
    symbolic += d.isSymbolic() ? 1 : 0;
  }
  if (symbolic > 1)
    throw Error("internal: a reshape target with several symbolic dims needs SymInt sizes");
  return value(OpKey("aten", "reshape"), {Argument::value(v), Argument::ints(sizes)}, v->dtype(), shape, suffix);
}

void replaceAndErase(Graph &graph, Node *node, Value *from, Value *to) {
  graph.replaceAllUsesWith(from, to);
  bool dead = true;
  for (const Value *out : node->outputs())
    dead = dead && !isUsed(graph, out);
  if (dead)
    graph.eraseNode(node);
}

} // namespace tico::legalize
