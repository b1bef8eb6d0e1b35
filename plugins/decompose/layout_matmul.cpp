// Batched and outer products torch.export keeps whole:
//   baddbmm(b, x, y, beta, alpha) = beta * b + alpha * bmm(x, y)
//   addbmm(b, x, y, beta, alpha)  = beta * b + alpha * sum over the batch of bmm(x, y)
//   addmv(b, m, v, beta, alpha)   = beta * b + alpha * (mm(m, unsqueeze(v, 1)) squeezed)
//   outer(a, v)                   = unsqueeze(a, 1) * v
// As for addmm, a factor of 1 costs nothing and beta = 0 drops b altogether: PyTorch ignores
// the input then, NaN and inf included.
#include "layout_rules.h"

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

// The factor as an argument of the product's dtype: an int for integer products (a float
// would promote them), a float otherwise.
Argument factorArg(double factor, DType dtype) {
  return isFloating(dtype) ? A(factor) : A(static_cast<int64_t>(factor));
}

// Whether beta and alpha are usable for a product of `dtype`: PyTorch refuses fractional
// factors for integer tensors.
bool factorsFit(const Node &n, DType dtype) {
  for (const char *name : {"beta", "alpha"}) {
    const double factor = numberArg(n, name, 1.0);
    if (!isFloating(dtype) && factor != static_cast<double>(static_cast<int64_t>(factor)))
      return false;
  }
  return true;
}

// beta * self + alpha * product, with PyTorch's beta = 0 rule.
std::vector<Value *> scaledSum(Builder &b, Node &n, Value *product) {
  const double beta = numberArg(n, "beta", 1.0);
  const double alpha = numberArg(n, "alpha", 1.0);
  if (alpha != 1.0)
    product = b.mul(A(product), factorArg(alpha, product->dtype()));
  if (beta == 0.0)
    return {product};
  Value *bias = n.input("self");
  if (beta != 1.0)
    bias = b.mul(A(bias), factorArg(beta, product->dtype()));
  return {b.add(A(product), A(bias))};
}

Replacement baddbmm(Builder &b, Node &n) {
  if (!factorsFit(n, n.input("batch1")->dtype()))
    return std::nullopt;
  Value *product = b.make("aten::bmm.default", {A(n.input("batch1")), A(n.input("batch2"))});
  return scaledSum(b, n, product);
}

Replacement addbmm(Builder &b, Node &n) {
  if (!factorsFit(n, n.input("batch1")->dtype()))
    return std::nullopt;
  Value *batched = b.make("aten::bmm.default", {A(n.input("batch1")), A(n.input("batch2"))});
  Value *product = b.make("aten::sum.dim_IntList", {A(batched), Ints({0})});
  return scaledSum(b, n, product);
}

Replacement addmv(Builder &b, Node &n) {
  Value *m = n.input("mat");
  Value *v = n.input("vec");
  if (m->rank() != 2 || v->rank() != 1 || !factorsFit(n, m->dtype()))
    return std::nullopt;
  Value *column = b.make("aten::unsqueeze.default", {A(v), A(int64_t{1})});
  Value *product = b.make("aten::mm.default", {A(m), A(column)});
  Value *vector = b.make("aten::squeeze.dim", {A(product), A(int64_t{1})});
  return scaledSum(b, n, vector);
}

Replacement outer(Builder &b, Node &n) {
  Value *a = n.input("self");
  Value *v = n.input("vec2");
  if (a->rank() != 1 || v->rank() != 1)
    return std::nullopt;
  Value *column = b.make("aten::unsqueeze.default", {A(a), A(int64_t{1})});
  return std::vector<Value *>{b.mul(A(column), A(v))};
}

} // namespace

std::vector<Rule> layoutMatmulRules() {
  return {{"aten::baddbmm.default", baddbmm},
          {"aten::addbmm.default", addbmm},
          {"aten::addmv.default", addmv},
          {"aten::outer.default", outer},
          {"aten::ger.default", outer}};
}

} // namespace tico::decompose
