// "_as" forms torch.export keeps whole, as the op they stand for with the other tensor's
// shape or dtype read at compile time:
//   expand_as(x, other) = expand(x, other's shape) (symbolic dims taken from `other`);
//   type_as(x, other)   = x cast to other's dtype, or x itself when the dtypes agree (PyTorch
//                         returns self then).
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

} // namespace

std::vector<Rule> layoutViewRules() {
  return {{"aten::expand_as.default", expandAs}, {"aten::type_as.default", typeAs}};
}

} // namespace tico::decompose
