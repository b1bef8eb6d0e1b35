// atan(x): Circle has ATAN2, but onert 0.2 has no kernel for it (its CPU backend and core know
// only the operator's name), so atan is computed from elementwise ops every runtime has:
// range reduction of |x| to |t| <= tan(pi/8), then an odd minimax polynomial (the single-
// precision coefficients of Cephes' atanf), then the sign of x:
//   |x| > tan(3pi/8):         atan|x| = pi/2 + atan(-1/|x|)
//   tan(pi/8) < |x| <= ...:   atan|x| = pi/4 + atan((|x| - 1) / (|x| + 1))
//   otherwise:                atan|x| = atan(|x|)
//   atan(t) ~ t + t * z * (((c0 * z + c1) * z + c2) * z + c3),  z = t * t
// In float32 this is within 3e-7 relative of torch.atan on the whole real line (large |x|
// reduce through -1/|x| without overflow, +-inf give +-pi/2, NaN stays NaN); atan(-0) is +0.
// Each branch is computed for every element and where() picks one: values of the branches not
// taken (-1/0, inf/inf) are never used.
#include "decomposition.h"

#include <numbers>

namespace tico::decompose {

using passes::A;

namespace {

constexpr double kTan3PiOver8 = 2.414213562373095;
constexpr double kTanPiOver8 = 0.4142135623730950;
constexpr double kC0 = 8.05374449538e-2;
constexpr double kC1 = -1.38776856032e-1;
constexpr double kC2 = 1.99777106478e-1;
constexpr double kC3 = -3.33329491539e-1;

Replacement atan(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->dtype() != DType::Float32)
    return std::nullopt;
  auto where = [&](Value *cond, Argument yes, Argument no) {
    const bool tensor_yes = yes.isValue(), tensor_no = no.isValue();
    const char *op = tensor_yes && tensor_no ? "aten::where.self"
                     : tensor_yes            ? "aten::where.ScalarOther"
                     : tensor_no             ? "aten::where.ScalarSelf"
                                             : "aten::where.Scalar";
    return b.make(op, {A(cond), std::move(yes), std::move(no)});
  };
  Value *a = b.make("aten::abs.default", {A(x)});
  Value *high = b.make("aten::gt.Scalar", {A(a), A(kTan3PiOver8)});
  Value *middle = b.make("aten::gt.Scalar", {A(a), A(kTanPiOver8)});
  Value *t_high = b.make("aten::neg.default", {A(b.make("aten::reciprocal.default", {A(a)}))});
  Value *t_middle = b.div(A(b.sub(A(a), A(1.0))), A(b.add(A(a), A(1.0))));
  Value *t = where(high, A(t_high), A(where(middle, A(t_middle), A(a))));
  Value *offset = where(high, A(std::numbers::pi / 2), A(where(middle, A(std::numbers::pi / 4), A(0.0))));
  Value *z = b.mul(A(t), A(t));
  Value *p = b.add(A(b.mul(A(z), A(kC0))), A(kC1));
  p = b.add(A(b.mul(A(p), A(z))), A(kC2));
  p = b.add(A(b.mul(A(p), A(z))), A(kC3));
  Value *y = b.add(A(b.add(A(b.mul(A(b.mul(A(p), A(z))), A(t))), A(t))), A(offset));
  Value *negative = b.make("aten::lt.Scalar", {A(x), A(0.0)});
  return std::vector<Value *>{where(negative, A(b.make("aten::neg.default", {A(y)})), A(y))};
}

} // namespace

std::vector<Rule> mathAtanRules() { return {{"aten::atan.default", atan}}; }

} // namespace tico::decompose
