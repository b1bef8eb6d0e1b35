// cumsum as a matrix product, for runtimes without a CUMSUM kernel (onert 0.2 refuses to load
// a model that has one). Along a dim of size n:
//
//   cumsum(x, d)[..., j] = sum_{i <= j} x[..., i] = (x @ U)[..., j],  U[i, j] = (i <= j)
//
// with x's dim d moved last. U is built from arange(n) (le of a column and a row), so a
// symbolic n needs no size limit and a static one folds into a constant. The product runs in
// float32 and is cast to cumsum's result dtype (int64 for integer and bool inputs):
//   * bool inputs, and integer inputs that are a cast of a bool tensor (attention masks,
//     position ids from `input_ids != pad`): every partial sum is at most n, exact in float32
//     below 2^24;
//   * float32 inputs: the sum runs in another order, within float32 rounding of eager;
//   * other integer inputs are left to CUMSUM: their partial sums may not be exact in float32.
#include "decomposition.h"

#include "type_rules.h"

namespace tico::decompose {

using passes::A;

namespace {

bool isBoolLike(const Value *x) {
  if (x->dtype() == DType::Bool)
    return true;
  const Node *p = x->producer();
  return p != nullptr && p->numArgs() > 0 && p->arg(0).isValue() && p->input(0)->dtype() == DType::Bool &&
         passes::isOp(*p, {"aten::_to_copy.default", "aten::to.dtype", "aten::to.dtype_layout", "aten::type_as.default"});
}

Replacement cumsum(Builder &b, Node &n) {
  Value *x = n.input("self");
  const DType out_dtype = n.output()->dtype();
  if (x->rank() == 0 || !(x->dtype() == DType::Float32 || isBoolLike(x)))
    return std::nullopt;
  if (out_dtype != DType::Float32 && out_dtype != DType::Int64 && out_dtype != DType::Int32)
    return std::nullopt;
  const int64_t rank = x->rank();
  const int64_t dim = normalizeDim(n.arg("dim").asInt(), rank);

  // The dim moved last (a transpose is its own inverse).
  Value *moved = dim == rank - 1 ? x : b.make("aten::transpose.int", {A(x), A(dim), A(rank - 1)});
  Value *values = moved->dtype() == DType::Float32 ? moved : b.cast(moved, DType::Float32);

  const Dim &size = x->shape()[static_cast<std::size_t>(dim)];
  Argument length = size.isStatic() ? A(size.value()) : A(b.symSize(x, dim));
  Value *iota = b.make("aten::arange.default", std::vector<NamedArg>{{"", length}, passes::kw("dtype", Argument::scalarType(DType::Int64))});
  Value *column = b.make("aten::unsqueeze.default", {A(iota), A(int64_t{1})});
  Value *row = b.make("aten::unsqueeze.default", {A(iota), A(int64_t{0})});
  Value *upper = b.cast(b.make("aten::le.Tensor", {A(column), A(row)}), DType::Float32);

  Value *sums = b.make("aten::matmul.default", {A(values), A(upper)});
  if (out_dtype != DType::Float32)
    sums = b.cast(sums, out_dtype);
  Value *out = dim == rank - 1 ? sums : b.make("aten::transpose.int", {A(sums), A(dim), A(rank - 1)});
  return std::vector<Value *>{out};
}

} // namespace

std::vector<Rule> cumsumRules() { return {{"aten::cumsum.default", cumsum}}; }

} // namespace tico::decompose
