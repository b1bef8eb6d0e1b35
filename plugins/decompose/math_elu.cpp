// elu(x, alpha, scale, input_scale) with any parameter other than 1 (what selu becomes after
// run_decompositions: alpha = 1.6733, scale = 1.0507), as ATen's kernel computes it:
//   x > 0: scale * x,   else: scale * alpha * (exp(input_scale * x) - 1)
// elu with every parameter 1 is left to the ELU lowering.
#include "decomposition.h"

namespace tico::decompose {

using passes::A;

namespace {

Replacement elu(Builder &b, Node &n) {
  Value *x = n.input("self");
  const double alpha = numberArg(n, "alpha", 1.0);
  const double scale = numberArg(n, "scale", 1.0);
  const double input_scale = numberArg(n, "input_scale", 1.0);
  if ((alpha == 1.0 && scale == 1.0 && input_scale == 1.0) || !isFloating(x->dtype()))
    return std::nullopt;
  Value *e = b.make("aten::exp.default", {A(input_scale == 1.0 ? x : b.mul(A(x), A(input_scale)))});
  Value *negative = b.sub(A(e), A(1.0));
  if (scale * alpha != 1.0)
    negative = b.mul(A(negative), A(scale * alpha));
  Value *positive = scale == 1.0 ? x : b.mul(A(x), A(scale));
  Value *above = b.make("aten::gt.Scalar", {A(x), A(0.0)});
  return std::vector<Value *>{b.make("aten::where.self", {A(above), A(positive), A(negative)})};
}

} // namespace

std::vector<Rule> mathEluRules() { return {{"aten::elu.default", elu}}; }

} // namespace tico::decompose
