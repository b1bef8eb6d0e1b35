// erf and erfc: Circle has no error-function operator, so both are computed in float32 from
// elementwise ops, with coefficients fitted for tico (least squares on Chebyshev nodes against
// double-precision erf / erfc, then checked in float32 arithmetic):
//   |x| < 1:  erf(x) = x * P(x^2)                                     (P of degree 5)
//   |x| >= 1: erfc(a) = t * exp(-h^2) * exp(Q(t) - (a - h)(a + h)),   a = |x|, t = 1 / (1 + a/2),
//             h = floor(16 a) / 16                                    (Q of degree 9)
//   erf(x) = sign(x) (1 - erfc(|x|)),  erfc(x) = 1 - erf(x) (|x| < 1),  2 - erfc(|x|) (x <= -1)
// Splitting a^2 into the exact h^2 and a small remainder keeps exp's argument accurate, so
// erfc keeps its relative accuracy far into the tail. Measured in float32 over [-10, 10] (and
// geometric grids down to 1e-30): erf within 1.1e-7 absolute / 1.7e-7 relative, erfc within
// 1.7e-7 absolute / 6.7e-7 relative (erfc values above 1e-36). erf(+-inf) = +-1, erfc(+inf) = 0,
// erfc(-inf) = 2 (|x| > 10 is computed as 10, whose erfc rounds to 0), NaN stays NaN; both
// branches are computed and where() picks one.
#include "math_unary.h"

namespace tico::decompose {

using namespace unary;

namespace {

// erf(x) / x on |x| < 1, in powers of x^2.
constexpr std::initializer_list<double> kSmall = {1.1283791065216064,    -0.37612318992614746,
                                                  0.11280130594968796,   -0.02670994959771633,
                                                  0.004916023463010788,  -0.0005625396152026951};
// log(erfc(a) / t) + a^2 on a >= 1, in powers of t = 1 / (1 + a/2).
constexpr std::initializer_list<double> kTail = {-1.2655322551727295, 1.000592827796936,  0.3673604726791382,
                                                 0.13979266583919525, -0.3497253358364105, 0.6629747748374939,
                                                 -1.6951425075531006, 1.9772533178329468,  -1.0532203912734985,
                                                 0.21547076106071472};

struct ErfParts {
  Value *small; // |x| < 1
  Value *erf_small; // erf(x) for |x| < 1
  Value *erfc_tail; // erfc(|x|) for |x| >= 1
};

ErfParts erfParts(Builder &b, Value *x) {
  Value *small = lt(b, abs(b, x), 1.0);
  Value *erf_small = b.mul(A(x), A(polynomial(b, b.mul(A(x), A(x)), kSmall)));
  // erfc(10) is below float32's smallest subnormal: |x| > 10 computes erfc(10) (0 after
  // rounding), which keeps +-inf out of the tail's arithmetic (inf - inf); NaN passes through.
  Value *a = where(b, gt(b, abs(b, x), 10.0), A(10.0), A(abs(b, x)));
  Value *t = op1(b, "aten::reciprocal.default", b.add(A(b.mul(A(a), A(0.5))), A(1.0)));
  Value *h = b.mul(A(op1(b, "aten::floor.default", b.mul(A(a), A(16.0)))), A(1.0 / 16));
  Value *rest = b.mul(A(b.sub(A(a), A(h))), A(b.add(A(a), A(h))));
  Value *exact_part = exp(b, neg(b, b.mul(A(h), A(h))));
  Value *fitted_part = exp(b, b.sub(A(polynomial(b, t, kTail)), A(rest)));
  Value *erfc_tail = b.mul(A(b.mul(A(t), A(exact_part))), A(fitted_part));
  return {small, erf_small, erfc_tail};
}

Replacement erf(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  const ErfParts p = erfParts(b, x);
  Value *tail = where(b, lt(b, x, 0.0), A(b.sub(A(p.erfc_tail), A(1.0))), A(b.make("aten::rsub.Scalar", {A(p.erfc_tail), A(1.0)})));
  return std::vector<Value *>{where(b, p.small, A(p.erf_small), A(tail))};
}

Replacement erfc(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  const ErfParts p = erfParts(b, x);
  Value *tail = where(b, lt(b, x, 0.0), A(b.make("aten::rsub.Scalar", {A(p.erfc_tail), A(2.0)})), A(p.erfc_tail));
  Value *near_zero = b.make("aten::rsub.Scalar", {A(p.erf_small), A(1.0)});
  return std::vector<Value *>{where(b, p.small, A(near_zero), A(tail))};
}

} // namespace

std::vector<Rule> mathErfRules() {
  return {{"aten::erf.default", erf}, {"aten::special_erf.default", erf}, {"aten::erfc.default", erfc},
          {"aten::special_erfc.default", erfc}};
}

} // namespace tico::decompose
