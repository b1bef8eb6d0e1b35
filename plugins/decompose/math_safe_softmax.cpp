// _safe_softmax(x, dim, dtype): the softmax scaled_dot_product_attention uses, which gives 0
// for a slice along `dim` that is entirely -inf, where SOFTMAX gives NaN (0/0):
//   where(all(x == -inf, dim, keepdim), 0, softmax(x, dim))
// computed as where(not all_masked, softmax, 0) with the ops the lowerings take.
#include "decomposition.h"

#include <limits>

namespace tico::decompose {

using passes::A;

namespace {

Replacement safeSoftmax(Builder &b, Node &n) {
  Value *x = n.input("self");
  const Argument *dtype_arg = n.findArg("dtype");
  if (dtype_arg && !dtype_arg->isNone() && dtype_arg->asScalarType() != x->dtype())
    x = b.cast(x, dtype_arg->asScalarType());
  if (!isFloating(x->dtype()) || x->rank() == 0)
    return std::nullopt;
  const int64_t dim = n.arg("dim").asInt();
  Value *soft = b.make("aten::_softmax.default", {A(x), A(dim), A(false)});
  Value *masked = b.make("aten::eq.Scalar", {A(x), A(-std::numeric_limits<double>::infinity())});
  Value *all_masked = b.make("aten::all.dim", {A(masked), A(dim), A(true)});
  Value *keep = b.make("aten::logical_not.default", {A(all_masked)});
  return std::vector<Value *>{b.make("aten::where.ScalarOther", {A(keep), A(soft), A(0.0)})};
}

} // namespace

std::vector<Rule> mathSafeSoftmaxRules() { return {{"aten::_safe_softmax.default", safeSoftmax}}; }

} // namespace tico::decompose
