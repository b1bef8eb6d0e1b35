// take_along_dim(x, index, dim) as the gather PyTorch computes it with:
//   with a dim: x and index broadcast against each other in every dim but `dim` (where each
//     keeps its own size), then gather(x, dim, index);
//   without a dim: gather(x.reshape(-1), 0, index.reshape(-1)).
// Unlike gather, take_along_dim with a dim accepts negative indices (counted from the end of
// `dim`), so the index is wrapped first: index + size * (index < 0). Without a dim PyTorch
// gathers directly and rejects them, so no wrap.
#include "layout_rules.h"

#include "tico/ir/shape_utils.h"
#include "type_rules.h"

namespace tico::decompose {

using passes::A;
using passes::kw;

namespace {

bool allStatic(const Shape &shape) {
  for (const Dim &d : shape)
    if (!d.isStatic())
      return false;
  return true;
}

// `shape` broadcast with `other` in every dim but `dim`, keeping shape[dim].
std::optional<Shape> broadcastExcept(const Shape &shape, const Shape &other, std::size_t dim) {
  Shape widened = other;
  widened[dim] = shape[dim];
  return broadcastShapes(shape, widened);
}

// index + size * (index < 0). Spelled with a cast and arithmetic rather than a where: Circle
// runtimes (onert) select only float tensors.
Value *wrapNegative(Builder &b, Value *index, int64_t size) {
  Value *negative = b.make("aten::lt.Scalar", {A(index), A(int64_t{0})});
  Value *offset = b.mul(A(b.cast(negative, index->dtype())), A(size));
  return b.add(A(index), A(offset));
}

Value *gather(Builder &b, Value *x, int64_t dim, Value *index) {
  return b.typed("aten::gather.default", {kw("self", A(x)), kw("dim", A(dim)), kw("index", A(index))}, x->dtype(),
                 index->shape());
}

Replacement takeAlongDim(Builder &b, Node &n) {
  Value *x = n.input("self");
  Value *index = n.input("indices");
  if (!isInteger(index->dtype()))
    return std::nullopt;
  const Argument &dim_arg = n.arg("dim");
  if (dim_arg.isNone()) {
    if (!allStatic(x->shape()) || !allStatic(index->shape()))
      return std::nullopt;
    const Dim numel = productOf(x->shape());
    Value *flat_x = x->rank() == 1 ? x : b.reshape(x, Shape{numel});
    Value *flat_index = index->rank() == 1 ? index : b.reshape(index, Shape{productOf(index->shape())});
    if (flat_x == nullptr || flat_index == nullptr)
      return std::nullopt;
    return std::vector<Value *>{gather(b, flat_x, 0, flat_index)};
  }
  if (x->rank() == 0 || x->rank() != index->rank())
    return std::nullopt;
  const int64_t dim = normalizeDim(dim_arg.asInt(), x->rank());
  const auto d = static_cast<std::size_t>(dim);
  const Dim &size = x->shape()[d];
  if (!size.isStatic())
    return std::nullopt;
  const std::optional<Shape> index_shape = broadcastExcept(index->shape(), x->shape(), d);
  const std::optional<Shape> x_shape = broadcastExcept(x->shape(), index->shape(), d);
  if (!index_shape || !x_shape)
    return std::nullopt;
  Value *wrapped = wrapNegative(b, index, size.value());
  Value *wide_index = *index_shape == index->shape() ? wrapped : b.expand(wrapped, *index_shape, {x});
  Value *wide_x = *x_shape == x->shape() ? x : b.expand(x, *x_shape, {index});
  if (wide_index == nullptr || wide_x == nullptr)
    return std::nullopt;
  return std::vector<Value *>{gather(b, wide_x, dim, wide_index)};
}

} // namespace

std::vector<Rule> layoutGatherRules() { return {{"aten::take_along_dim.default", takeAlongDim}}; }

} // namespace tico::decompose
