// Rounding ops Circle has no operator for, from FLOOR / CEIL / ROUND / FLOOR_DIV:
//   trunc(x)                     = where(x < 0, -floor(-x), floor(x))    (integers: x itself)
//   div(x, y, 'trunc'), float    = trunc(x / y)    (ATen computes std::trunc(a / b) the same way)
//   div(x, y, 'trunc'), integer  = q + 1 where q * y != x and q < 0, else q, with q = div(x, y, 'floor')
//                                  (exact: FLOOR_DIV of integers is exact, and a floor quotient
//                                  that is negative and inexact is one below the truncated one)
//   floor_divide(x, y)           = div(x, y, 'floor')   (PyTorch's floor_divide rounds down)
//   round(x, decimals=d)         = round(x * 10^d) / 10^d for d >= 0, round(x / 10^-d) * 10^-d
//                                  for d < 0, with 10^|d| rounded to the input's float type first:
//                                  ATen's round_decimals formula, so results match bit for bit
//                                  (ROUND is round-half-to-even like std::nearbyint).
#include "decomposition.h"

#include <cmath>

namespace tico::decompose {

using passes::A;

namespace {

// Negative values round up: -floor(-x) rather than ceil(x), since onert 0.2 has no CEIL kernel
// (and -floor(-x) keeps the sign of a zero result, -0.0 for -0.5, as trunc does).
Value *truncate(Builder &b, Value *x) {
  Value *negative = b.make("aten::lt.Scalar", {A(x), A(0.0)});
  auto neg = [&](Value *v) { return b.make("aten::neg.default", {A(v)}); };
  Value *up = neg(b.make("aten::floor.default", {A(neg(x))}));
  Value *down = b.make("aten::floor.default", {A(x)});
  return b.make("aten::where.self", {A(negative), A(up), A(down)});
}

Argument floorMode() { return Argument::string("floor"); }

// div(x, y, rounding_mode='trunc') for the node's result dtype; `self`/`other` may be numbers.
Replacement truncDivision(Builder &b, Node &n) {
  const Argument *mode = n.findArg("rounding_mode");
  if (mode == nullptr || mode->isNone() || mode->asString() != "trunc")
    return std::nullopt;
  const Argument &self = n.arg(0), &other = n.arg(1);
  const DType dtype = n.output()->dtype();
  const std::string op = n.op().overload == "Scalar_mode" ? "aten::div.Scalar" : "aten::div.Tensor";
  if (isFloating(dtype))
    return std::vector<Value *>{truncate(b, b.make(op, {self, other}))};
  if (!isInteger(dtype) || !self.isValue())
    return std::nullopt;
  Value *q = b.make(op + "_mode", {passes::kw("self", self), passes::kw("other", other),
                                   passes::kw("rounding_mode", floorMode())});
  Value *inexact = b.make("aten::ne.Tensor", {A(b.mul(A(q), other)), self});
  Value *negative = b.make("aten::lt.Scalar", {A(q), A(int64_t{0})});
  Value *bump = b.make("aten::logical_and.default", {A(inexact), A(negative)});
  return std::vector<Value *>{b.make("aten::where.self", {A(bump), A(b.add(A(q), A(int64_t{1}))), A(q)})};
}

Replacement roundDecimals(Builder &b, Node &n) {
  Value *x = n.input("self");
  const int64_t decimals = n.arg("decimals").asInt();
  if (decimals == 0)
    return std::nullopt; // ROUND takes it as is
  if (x->dtype() != DType::Float32)
    return std::nullopt;
  // The power as the kernel computes it: std::pow(10, |d|) converted to float.
  const double power = static_cast<double>(static_cast<float>(std::pow(10.0, static_cast<double>(std::llabs(decimals)))));
  Value *scaled = decimals > 0 ? b.mul(A(x), A(power)) : b.div(A(x), A(power));
  Value *rounded = b.make("aten::round.default", {A(scaled)});
  return std::vector<Value *>{decimals > 0 ? b.div(A(rounded), A(power)) : b.mul(A(rounded), A(power))};
}

} // namespace

std::vector<Rule> mathRoundingRules() {
  return {
      {"aten::trunc.default",
       [](Builder &b, Node &n) -> Replacement {
         Value *x = n.input("self");
         if (isInteger(x->dtype()))
           return std::vector<Value *>{b.make("aten::clone.default", {A(x)})};
         if (!isFloating(x->dtype()))
           return std::nullopt;
         return std::vector<Value *>{truncate(b, x)};
       }},
      {"aten::div.Tensor_mode", truncDivision},
      {"aten::div.Scalar_mode", truncDivision},
      {"aten::floor_divide.default",
       [](Builder &b, Node &n) -> Replacement {
         return std::vector<Value *>{b.make("aten::div.Tensor_mode", {passes::kw("self", n.arg(0)), passes::kw("other", n.arg(1)),
                                                                      passes::kw("rounding_mode", floorMode())})};
       }},
      {"aten::floor_divide.Scalar",
       [](Builder &b, Node &n) -> Replacement {
         return std::vector<Value *>{b.make("aten::div.Scalar_mode", {passes::kw("self", n.arg(0)), passes::kw("other", n.arg(1)),
                                                                      passes::kw("rounding_mode", floorMode())})};
       }},
      {"aten::round.decimals", roundDecimals},
  };
}

} // namespace tico::decompose
