// "_as" forms torch.export keeps whole, as the op they stand for with the other tensor's
// shape or dtype read at compile time:
//   expand_as(x, other) = expand(x, other's shape) (symbolic dims taken from `other`);
//   type_as(x, other)   = x cast to other's dtype, or x itself when the dtypes agree (PyTorch
//                         returns self then);
//   broadcast_to(x, size) = expand(x, size) (the same op under its NumPy name);
//   fill.Tensor(x, v)   = v (a 0-d tensor) cast to x's dtype and expanded to x's shape.
#include "layout_rules.h"

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

} // namespace

std::vector<Rule> layoutViewRules() {
  return {{"aten::expand_as.default", expandAs},
          {"aten::type_as.default", typeAs},
          {"aten::broadcast_to.default", broadcastTo},
          {"aten::fill.Tensor", fillTensor}};
}

} // namespace tico::decompose
