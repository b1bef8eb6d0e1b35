// Small builders shared by the unary math rules (math_erf.cpp, math_exp_log.cpp,
// math_hyperbolic.cpp, math_trig.cpp, math_classify.cpp): each inserts elementwise ATen ops
// that have Circle lowerings every runtime here runs (no CEIL, SIGN or ATAN2: onert 0.2 has no
// kernel for them).
#pragma once

#include "decomposition.h"

#include <initializer_list>

namespace tico::decompose::unary {

using passes::A;

// where(cond, yes, no) with tensor or number branches (picks the overload).
inline Value *where(Builder &b, Value *cond, Argument yes, Argument no) {
  const bool tensor_yes = yes.isValue(), tensor_no = no.isValue();
  const char *op = tensor_yes && tensor_no ? "aten::where.self"
                   : tensor_yes            ? "aten::where.ScalarOther"
                   : tensor_no             ? "aten::where.ScalarSelf"
                                           : "aten::where.Scalar";
  return b.make(op, {A(cond), std::move(yes), std::move(no)});
}

inline Value *op1(Builder &b, const char *op, Value *x) { return b.make(op, {A(x)}); }
inline Value *neg(Builder &b, Value *x) { return op1(b, "aten::neg.default", x); }
inline Value *abs(Builder &b, Value *x) { return op1(b, "aten::abs.default", x); }
inline Value *exp(Builder &b, Value *x) { return op1(b, "aten::exp.default", x); }
inline Value *log(Builder &b, Value *x) { return op1(b, "aten::log.default", x); }
inline Value *log1p(Builder &b, Value *x) { return op1(b, "aten::log1p.default", x); }
inline Value *sqrt(Builder &b, Value *x) { return op1(b, "aten::sqrt.default", x); }
inline Value *lt(Builder &b, Value *x, double v) { return b.make("aten::lt.Scalar", {A(x), A(v)}); }
inline Value *gt(Builder &b, Value *x, double v) { return b.make("aten::gt.Scalar", {A(x), A(v)}); }

// c[0] + c[1] x + c[2] x^2 + ... by Horner's rule (coefficients rounded to float32 by the
// lowering, as the fits assumed).
inline Value *polynomial(Builder &b, Value *x, std::initializer_list<double> coefficients) {
  const double *c = coefficients.begin();
  std::size_t i = coefficients.size() - 1;
  Value *p = b.add(A(b.mul(A(x), A(c[i]))), A(c[i - 1]));
  for (i -= 1; i > 0; --i)
    p = b.add(A(b.mul(A(p), A(x))), A(c[i - 1]));
  return p;
}

// xlogy / xlog1py's convention: `product` (x times a function of y), 0 where x is 0 and y is not
// NaN (so 0 * log(0) is 0, not NaN).
inline Value *zeroWhereXIsZero(Builder &b, Value *x, Value *y, Value *product) {
  Value *zero_x = b.make("aten::eq.Scalar", {A(x), A(0.0)});
  Value *y_is_nan = b.make("aten::isnan.default", {A(y)});
  Value *zero = b.make("aten::logical_and.default", {A(zero_x), A(b.make("aten::logical_not.default", {A(y_is_nan)}))});
  return where(b, zero, A(0.0), A(product));
}

// The rules take float32 tensors (the dtype policy computes half-precision programs in
// float32); other dtypes are left to the lowerings' report.
inline bool isFloat32(const Value *x) { return x->isTensor() && x->dtype() == DType::Float32; }

} // namespace tico::decompose::unary
