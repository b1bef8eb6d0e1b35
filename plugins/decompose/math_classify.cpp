// Sign and classification ops, and the small piecewise activations, from comparisons, ABS and
// SELECT_V2 (onert 0.2 has no SIGN kernel):
//   sign(x) = sgn(x) = where(x > 0, 1, where(x < 0, -1, 0))   (sign(NaN) = 0, as PyTorch)
//   signbit(x) = x < 0 or (x == 0 and 1/x < 0)                  (-0.0 counts; the sign of a NaN
//                                                                is not visible to comparisons: false)
//   isnan(x) = x != x;  isinf(x) = |x| == inf;  isfinite(x) = |x| < inf (integers: x == x)
//   isposinf(x) = x == inf;  isneginf(x) = x == -inf
//   nan_to_num(x) = NaN -> nan (0), +inf -> posinf (float32 max), -inf -> neginf (lowest)
//   frac(x) = x - trunc(x);  fix = trunc;  positive = x
//   hardshrink(x, l) = where(|x| <= l, 0, x)  (NaN passes through, as ATen's formula)
//   softshrink(x, l) = where(x > l, x - l, where(x < -l, x + l, 0))
//   logit(x, eps) = log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given; logit(1) =
//                   inf as a constant (onert 0.2's DIV saturates 1 / 0 to float32 max)
//   mul(a, b) of two bool tensors = logical_and(a, b)   (isfinite after run_decompositions)
#include "math_unary.h"

#include <limits>

namespace tico::decompose {

using namespace unary;

namespace {

Value *eq(Builder &b, Value *x, double v) { return b.make("aten::eq.Scalar", {A(x), A(v)}); }

Replacement sign(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!x->isTensor() || !(isFloating(x->dtype()) || isInteger(x->dtype())))
    return std::nullopt;
  Value *zero = b.mul(A(x), A(int64_t{0})); // zero of x's dtype and shape (NaN * 0 is replaced below)
  Value *inner = where(b, lt(b, x, 0.0), A(int64_t{-1}), A(b.make("aten::where.ScalarSelf", {A(b.make("aten::ne.Tensor", {A(x), A(x)})), A(int64_t{0}), A(zero)})));
  return std::vector<Value *>{where(b, gt(b, x, 0.0), A(int64_t{1}), A(inner))};
}

Replacement signbit(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *negative_zero = b.make("aten::logical_and.default",
                                {A(eq(b, x, 0.0)), A(lt(b, op1(b, "aten::reciprocal.default", x), 0.0))});
  return std::vector<Value *>{b.make("aten::logical_or.default", {A(lt(b, x, 0.0)), A(negative_zero)})};
}

Replacement isnan(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!x->isTensor())
    return std::nullopt;
  return std::vector<Value *>{b.make("aten::ne.Tensor", {A(x), A(x)})};
}

Rewrite infinityTest(const char *compare, double bound, bool magnitude) {
  return [=](Builder &b, Node &n) -> Replacement {
    Value *x = n.input("self");
    if (!isFloat32(x))
      return std::nullopt;
    return std::vector<Value *>{b.make(compare, {A(magnitude ? abs(b, x) : x), A(bound)})};
  };
}

Replacement nanToNum(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  const double nan = numberArg(n, "nan", 0.0);
  const double posinf = numberArg(n, "posinf", std::numeric_limits<float>::max());
  const double neginf = numberArg(n, "neginf", std::numeric_limits<float>::lowest());
  const double inf = std::numeric_limits<double>::infinity();
  Value *y = where(b, eq(b, x, inf), A(posinf), A(x));
  y = where(b, eq(b, x, -inf), A(neginf), A(y));
  return std::vector<Value *>{where(b, b.make("aten::ne.Tensor", {A(x), A(x)}), A(nan), A(y))};
}

Replacement frac(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  return std::vector<Value *>{b.sub(A(x), A(op1(b, "aten::trunc.default", x)))};
}

Replacement fix(Builder &b, Node &n) { return std::vector<Value *>{op1(b, "aten::trunc.default", n.input("self"))}; }

Replacement positive(Builder &, Node &n) { return std::vector<Value *>{n.input("self")}; }

Replacement hardshrink(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  const double lambda = numberArg(n, "lambd", 0.5);
  Value *inside = b.make("aten::le.Scalar", {A(abs(b, x)), A(lambda)});
  return std::vector<Value *>{where(b, inside, A(0.0), A(x))};
}

Replacement softshrink(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  const double lambda = numberArg(n, "lambd", 0.5);
  Value *below = where(b, lt(b, x, -lambda), A(b.add(A(x), A(lambda))), A(0.0));
  return std::vector<Value *>{where(b, gt(b, x, lambda), A(b.sub(A(x), A(lambda))), A(below))};
}

Replacement logit(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  const Argument &eps = n.arg("eps");
  Value *z = x;
  if (!eps.isNone())
    z = b.make("aten::clamp.default", {A(x), A(eps.asDouble()), A(1.0 - eps.asDouble())});
  Value *y = log(b, b.div(A(z), A(b.make("aten::rsub.Scalar", {A(z), A(1.0)}))));
  if (!eps.isNone())
    return std::vector<Value *>{y};
  // logit(1) = inf as a constant: onert 0.2's DIV saturates 1 / 0 to float32 max.
  return std::vector<Value *>{where(b, eq(b, x, 1.0), A(std::numeric_limits<double>::infinity()), A(y))};
}

// mul of two bool tensors (ATen's decomposition of isfinite multiplies two masks) is their
// logical and; MUL has no bool kernel.
Replacement boolProduct(Builder &b, Node &n) {
  const Argument &self = n.arg(0), &other = n.arg(1);
  if (n.output()->dtype() != DType::Bool || !passes::isTensorValue(self) || !passes::isTensorValue(other) ||
      self.asValue()->dtype() != DType::Bool || other.asValue()->dtype() != DType::Bool)
    return std::nullopt;
  return std::vector<Value *>{b.make("aten::logical_and.default", {self, other})};
}

} // namespace

std::vector<Rule> mathClassifyRules() {
  return {{"aten::sign.default", sign},
          {"aten::sgn.default", sign},
          {"aten::signbit.default", signbit},
          {"aten::isnan.default", isnan},
          {"aten::isinf.default", infinityTest("aten::eq.Scalar", std::numeric_limits<double>::infinity(), true)},
          {"aten::isfinite.default", infinityTest("aten::lt.Scalar", std::numeric_limits<double>::infinity(), true)},
          {"aten::isposinf.default", infinityTest("aten::eq.Scalar", std::numeric_limits<double>::infinity(), false)},
          {"aten::isneginf.default", infinityTest("aten::eq.Scalar", -std::numeric_limits<double>::infinity(), false)},
          {"aten::nan_to_num.default", nanToNum},
          {"aten::frac.default", frac},
          {"aten::fix.default", fix},
          {"aten::positive.default", positive},
          {"aten::hardshrink.default", hardshrink},
          {"aten::softshrink.default", softshrink},
          {"aten::logit.default", logit},
          {"aten::mul.Tensor", boolProduct}};
}

} // namespace tico::decompose
