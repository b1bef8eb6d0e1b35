// Exponentials and logarithms Circle has no operator for, from EXP / LOG / POW:
//   expm1(x) = x + x^2/2! + ... + x^8/8! for |x| < 0.5 (Taylor: truncation below 5e-9 relative;
//              exp(x) - 1 would lose up to all significant digits near 0), exp(x) - 1 otherwise
//   exp2(x)  = pow(2, x)          (POW keeps exact powers of two exact; exp(x ln 2) would not),
//              inf from x = 128 on as a constant (onert 0.2's POW saturates overflow to float32 max)
//   log2(x)  = log(x) * (1 / ln 2),  log10(x) = log(x) * (1 / ln 10)   (one extra rounding)
//   special_expm1 / special_log1p are aliases (after run_decompositions() they are expm1 / log1p)
#include "math_unary.h"

#include <limits>
#include <numbers>

namespace tico::decompose {

using namespace unary;

namespace {

Replacement expm1(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  // x * (1 + x/2 + x^2/6 + ... + x^7/8!)
  Value *series = b.mul(A(x), A(polynomial(b, x, {1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                                                  1.0 / 5040, 1.0 / 40320})));
  Value *direct = b.sub(A(exp(b, x)), A(1.0));
  return std::vector<Value *>{where(b, lt(b, abs(b, x), 0.5), A(series), A(direct))};
}

Replacement exp2(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *two = b.scalarConstant(DType::Float32, 2.0, "_two");
  Value *power = b.make("aten::pow.Tensor_Tensor", {A(two), A(x)});
  // 2^x overflows float32 from x = 128 on; onert 0.2's POW saturates that to float32 max.
  Value *overflow = b.make("aten::ge.Scalar", {A(x), A(128.0)});
  return std::vector<Value *>{where(b, overflow, A(std::numeric_limits<double>::infinity()), A(power))};
}

Rewrite scaledLog(double scale) {
  return [scale](Builder &b, Node &n) -> Replacement {
    Value *x = n.input("self");
    if (!isFloat32(x))
      return std::nullopt;
    return std::vector<Value *>{b.mul(A(log(b, x)), A(scale))};
  };
}

Rewrite alias(const char *op) {
  return [op](Builder &b, Node &n) -> Replacement { return std::vector<Value *>{op1(b, op, n.input("self"))}; };
}

} // namespace

std::vector<Rule> mathExpLogRules() {
  return {{"aten::expm1.default", expm1},
          {"aten::exp2.default", exp2},
          {"aten::log2.default", scaledLog(1.0 / std::numbers::ln2)},
          {"aten::log10.default", scaledLog(1.0 / std::numbers::ln10)},
          {"aten::special_expm1.default", alias("aten::expm1.default")},
          {"aten::special_log1p.default", alias("aten::log1p.default")}};
}

} // namespace tico::decompose
