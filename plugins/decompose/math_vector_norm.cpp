// linalg_vector_norm(x, ord, dim, keepdim, dtype) from reductions Circle has (SUM, REDUCE_MAX,
// REDUCE_MIN) and elementwise ops, over `dim` (None or [] means every dim):
//   ord 2:     sqrt(sum(x * x))            ord 1:    sum(|x|)
//   ord inf:   amax(|x|)                   ord -inf: amin(|x|)
//   ord 0:     sum(x != 0)  (the number of non-zero elements, in the result dtype)
//   other p:   sum(|x| ^ p) ^ (1 / p)
// With `dtype` the input is cast first, as PyTorch computes the norm in that dtype.
#include "decomposition.h"

#include "type_rules.h"

#include <cmath>
#include <limits>

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

Replacement vectorNorm(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto rank = static_cast<int64_t>(x->rank());
  if (rank == 0)
    return std::nullopt;
  const Argument *dtype_arg = n.findArg("dtype");
  if (dtype_arg && !dtype_arg->isNone() && dtype_arg->asScalarType() != x->dtype())
    x = b.cast(x, dtype_arg->asScalarType());
  if (!isFloating(x->dtype()))
    return std::nullopt;
  std::vector<int64_t> dims;
  const Argument *dim_arg = n.findArg("dim");
  if (dim_arg && dim_arg->isIntList())
    for (int64_t d : dim_arg->asInts())
      dims.push_back(normalizeDim(d, rank));
  else if (dim_arg && !dim_arg->isNone())
    return std::nullopt;
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  const bool keepdim = n.findArg("keepdim") && n.arg("keepdim").asBool();
  auto reduce = [&](const char *op, Value *v) { return b.make(op, {A(v), Ints(dims), A(keepdim)}); };

  const double ord = numberArg(n, "ord", 2.0);
  const double inf = std::numeric_limits<double>::infinity();
  Value *result = nullptr;
  if (ord == 2.0) {
    result = b.make("aten::sqrt.default", {A(reduce("aten::sum.dim_IntList", b.mul(A(x), A(x))))});
  } else if (ord == 0.0) {
    Value *nonzero = b.cast(b.make("aten::ne.Scalar", {A(x), A(0.0)}), x->dtype());
    result = reduce("aten::sum.dim_IntList", nonzero);
  } else {
    Value *magnitude = b.make("aten::abs.default", {A(x)});
    if (ord == 1.0)
      result = reduce("aten::sum.dim_IntList", magnitude);
    else if (ord == inf)
      result = reduce("aten::amax.default", magnitude);
    else if (ord == -inf)
      result = reduce("aten::amin.default", magnitude);
    else if (std::isnan(ord))
      return std::nullopt;
    else {
      Value *powered = b.make("aten::pow.Tensor_Scalar", {A(magnitude), A(ord)});
      result = b.make("aten::pow.Tensor_Scalar", {A(reduce("aten::sum.dim_IntList", powered)), A(1.0 / ord)});
    }
  }
  return std::vector<Value *>{result};
}

} // namespace

std::vector<Rule> mathVectorNormRules() { return {{"aten::linalg_vector_norm.default", vectorNorm}}; }

} // namespace tico::decompose
