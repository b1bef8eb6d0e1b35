// Hyperbolic functions and their inverses, from EXP / LOG / SQRT and expm1 (math_exp_log.cpp):
//   sinh(x)  = sign(x) (E + E / (E + 1)) / 2 with E = expm1(|x|)   (no cancellation near 0)
//              sign(x) exp(|x| - ln 2) for |x| > 20                (no overflow before sinh does)
//   cosh(x)  = exp(|x| - ln 2) + exp(-|x|) / 2                     (finite up to cosh's own limit)
//   asinh(x) = sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x|; log(a) + ln 2 for a > 1e4
//   acosh(x) = log1p(y + sqrt(y (x + 1))), y = x - 1;                 log(x) + ln 2 for x > 1e4
//   atanh(x) = log1p(2x / (1 - x)) / 2, +-inf at x = +-1 as constants (onert 0.2's DIV and POW
//              saturate an infinite result to +-float32 max; SELECT_V2 of a constant does not)
// The large-argument forms drop terms below 3e-9 relative. Outside the domain (acosh of x < 1,
// atanh of |x| > 1) sqrt / log1p of a negative number give NaN as PyTorch does.
#include "math_unary.h"

#include <limits>
#include <numbers>

namespace tico::decompose {

using namespace unary;

namespace {

constexpr double kLarge = 1e4;

Value *withSignOf(Builder &b, Value *x, Value *magnitude) {
  return where(b, lt(b, x, 0.0), A(neg(b, magnitude)), A(magnitude));
}

Replacement sinh(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *a = abs(b, x);
  Value *e = op1(b, "aten::expm1.default", a);
  Value *moderate = b.mul(A(b.add(A(e), A(b.div(A(e), A(b.add(A(e), A(1.0))))))), A(0.5));
  Value *large = exp(b, b.sub(A(a), A(std::numbers::ln2)));
  return std::vector<Value *>{withSignOf(b, x, where(b, gt(b, a, 20.0), A(large), A(moderate)))};
}

Replacement cosh(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *a = abs(b, x);
  Value *half_exp = exp(b, b.sub(A(a), A(std::numbers::ln2)));
  return std::vector<Value *>{b.add(A(half_exp), A(b.mul(A(exp(b, neg(b, a))), A(0.5))))};
}

Replacement asinh(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *a = abs(b, x);
  Value *a2 = b.mul(A(a), A(a));
  Value *root = sqrt(b, b.add(A(a2), A(1.0)));
  Value *moderate = log1p(b, b.add(A(a), A(b.div(A(a2), A(b.add(A(root), A(1.0)))))));
  Value *large = b.add(A(log(b, a)), A(std::numbers::ln2));
  return std::vector<Value *>{withSignOf(b, x, where(b, gt(b, a, kLarge), A(large), A(moderate)))};
}

Replacement acosh(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *y = b.sub(A(x), A(1.0));
  Value *moderate = log1p(b, b.add(A(y), A(sqrt(b, b.mul(A(y), A(b.add(A(x), A(1.0))))))));
  Value *large = b.add(A(log(b, x)), A(std::numbers::ln2));
  return std::vector<Value *>{where(b, gt(b, x, kLarge), A(large), A(moderate))};
}

Replacement atanh(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *ratio = b.div(A(b.mul(A(x), A(2.0))), A(b.make("aten::rsub.Scalar", {A(x), A(1.0)})));
  Value *y = b.mul(A(log1p(b, ratio)), A(0.5));
  // The poles as constants: onert 0.2's DIV saturates x / 0 to the largest float.
  const double inf = std::numeric_limits<double>::infinity();
  y = where(b, b.make("aten::eq.Scalar", {A(x), A(1.0)}), A(inf), A(y));
  return std::vector<Value *>{where(b, b.make("aten::eq.Scalar", {A(x), A(-1.0)}), A(-inf), A(y))};
}

} // namespace

std::vector<Rule> mathHyperbolicRules() {
  return {{"aten::sinh.default", sinh},
          {"aten::cosh.default", cosh},
          {"aten::asinh.default", asinh},
          {"aten::acosh.default", acosh},
          {"aten::atanh.default", atanh}};
}

} // namespace tico::decompose
