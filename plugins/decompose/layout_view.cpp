// "_as" forms torch.export keeps whole, as the op they stand for with the other tensor's
// shape or dtype read at compile time:
//   expand_as(x, other) = expand(x, other's shape) (symbolic dims taken from `other`);
//   type_as(x, other)   = x cast to other's dtype, or x itself when the dtypes agree (PyTorch
//                         returns self then);
//   broadcast_to(x, size) = expand(x, size) (the same op under its NumPy name);
//   fill.Tensor(x, v)   = v (a 0-d tensor) cast to x's dtype and expanded to x's shape;
//   as_strided(x, size, stride) of a freshly computed (so contiguous) x, offset 0, reading
//                         every element once: the strides are those of a contiguous tensor
//                         of `size` up to an order of the dims, so it is a reshape (and a
//                         permute when the order differs). Dims of size 1 have any stride.
//                         run_decompositions() writes squeezes after a mean this way.
#include "layout_rules.h"

#include <algorithm>

namespace tico::decompose {

using passes::A;

namespace {

Replacement expandAs(Builder &b, Node &n) {
  Value *x = n.input("self");
  Value *other = n.input("other");
  if (x->rank() > other->rank())
    return std::nullopt;
  Value *expanded = b.expand(x, other->shape(), {other});
  return expanded ? Replacement(std::vector<Value *>{expanded}) : std::nullopt;
}

Replacement typeAs(Builder &b, Node &n) {
  Value *x = n.input("self");
  const DType dtype = n.input("other")->dtype();
  if (dtype == DType::Unknown)
    return std::nullopt;
  return std::vector<Value *>{x->dtype() == dtype ? x : b.cast(x, dtype)};
}

Replacement broadcastTo(Builder &b, Node &n) {
  return std::vector<Value *>{b.make("aten::expand.default", {A(n.input("self")), n.arg("size")})};
}

Replacement fillTensor(Builder &b, Node &n) {
  Value *x = n.input("self");
  Value *v = n.input("value");
  if (v->rank() != 0 || x->dtype() == DType::Unknown)
    return std::nullopt;
  Value *cast = v->dtype() == x->dtype() ? v : b.cast(v, x->dtype());
  Value *filled = b.expand(cast, x->shape(), {x});
  return filled ? Replacement(std::vector<Value *>{filled}) : std::nullopt;
}

Replacement asStrided(Builder &b, Node &n) {
  Value *x = n.input("self");
  const Node *producer = x->producer();
  if (producer != nullptr && producer->schema() != nullptr && producer->schema()->isView())
    return std::nullopt; // the strides would address the storage of a view's base
  const std::optional<std::vector<int64_t>> size = staticInts(n.arg("size"));
  const std::optional<std::vector<int64_t>> stride = staticInts(n.arg("stride"));
  const Argument &offset = n.arg("storage_offset");
  if (!size || !stride || size->size() != stride->size() || !isStatic(x->shape()))
    return std::nullopt;
  if (!offset.isNone() && !(offset.isInt() && offset.asInt() == 0))
    return std::nullopt;
  int64_t numel = 1;
  for (int64_t d : *size)
    numel *= d;
  if (numel != numElementsHint(x->shape()))
    return std::nullopt;
  // The dims of size > 1 by decreasing stride must be a contiguous layout.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < size->size(); ++i)
    if ((*size)[i] != 1)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) { return (*stride)[a] > (*stride)[c]; });
  int64_t expected = 1;
  for (std::size_t k = order.size(); k-- > 0;) {
    if ((*stride)[order[k]] != expected)
      return std::nullopt;
    expected *= (*size)[order[k]];
  }
  // Size-1 dims keep their place: lay the dims out in `order` with them where they are.
  std::vector<int64_t> perm; // result dim i reads laid-out dim perm[i]
  std::vector<std::size_t> layout;
  std::size_t next = 0;
  for (std::size_t i = 0; i < size->size(); ++i)
    layout.push_back((*size)[i] == 1 ? i : order[next++]);
  Shape laid_out;
  for (std::size_t i : layout)
    laid_out.push_back((*size)[i]);
  Value *reshaped = b.reshape(x, laid_out);
  if (reshaped == nullptr)
    return std::nullopt;
  bool identity = true;
  std::vector<int64_t> inverse(layout.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    inverse[layout[i]] = static_cast<int64_t>(i);
    identity = identity && layout[i] == i;
  }
  if (identity)
    return std::vector<Value *>{reshaped};
  return std::vector<Value *>{b.permute(reshaped, inverse)};
}

} // namespace

std::vector<Rule> layoutViewRules() {
  return {{"aten::expand_as.default", expandAs},
          {"aten::type_as.default", typeAs},
          {"aten::broadcast_to.default", broadcastTo},
          {"aten::fill.Tensor", fillTensor},
          {"aten::as_strided.default", asStrided}};
}

} // namespace tico::decompose
