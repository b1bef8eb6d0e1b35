// Trigonometric functions Circle has no operator for, from SIN / COS / SQRT and atan (which
// math_atan.cpp decomposes in turn):
//   tan(x)  = sin(x) / cos(x)
//   asin(x) = atan(x / sqrt((1 - x)(1 + x)))      ((1 - x)(1 + x) has no cancellation near |x| = 1;
//                                                  x = +-1 gives atan(+-inf) = +-pi/2)
//   acos(x) = 2 atan(sqrt((1 - x) / (1 + x)))     (accurate near both ends: acos(1) = 0,
//                                                  acos(-1) = 2 atan(inf) = pi)
//   sinc(x) = sin(pi x) / (pi x), 1 at x = 0     (ATen's float32 formula)
//   deg2rad(x) = x * (pi / 180), rad2deg(x) = x * (180 / pi)
// |x| > 1 makes asin / acos NaN through sqrt of a negative number, as PyTorch gives.
#include "math_unary.h"

#include <numbers>

namespace tico::decompose {

using namespace unary;

namespace {

Value *atan(Builder &b, Value *x) { return op1(b, "aten::atan.default", x); }

Replacement tan(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  return std::vector<Value *>{b.div(A(op1(b, "aten::sin.default", x)), A(op1(b, "aten::cos.default", x)))};
}

Replacement asin(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *one_minus = b.make("aten::rsub.Scalar", {A(x), A(1.0)});
  Value *cosine = sqrt(b, b.mul(A(one_minus), A(b.add(A(x), A(1.0)))));
  return std::vector<Value *>{atan(b, b.div(A(x), A(cosine)))};
}

Replacement acos(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *ratio = b.div(A(b.make("aten::rsub.Scalar", {A(x), A(1.0)})), A(b.add(A(x), A(1.0))));
  return std::vector<Value *>{b.mul(A(atan(b, sqrt(b, ratio))), A(2.0))};
}

Replacement sinc(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *px = b.mul(A(x), A(std::numbers::pi));
  Value *ratio = b.div(A(op1(b, "aten::sin.default", px)), A(px));
  return std::vector<Value *>{where(b, b.make("aten::eq.Scalar", {A(x), A(0.0)}), A(1.0), A(ratio))};
}

Rewrite scaled(double factor) {
  return [factor](Builder &b, Node &n) -> Replacement {
    Value *x = n.input("self");
    if (!isFloat32(x))
      return std::nullopt;
    return std::vector<Value *>{b.mul(A(x), A(factor))};
  };
}

} // namespace

std::vector<Rule> mathTrigRules() {
  return {{"aten::tan.default", tan},
          {"aten::asin.default", asin},
          {"aten::acos.default", acos},
          {"aten::sinc.default", sinc},
          {"aten::deg2rad.default", scaled(std::numbers::pi / 180)},
          {"aten::rad2deg.default", scaled(180 / std::numbers::pi)}};
}

} // namespace tico::decompose
