// Math composites plain torch.export keeps whole, written as ops with lowerings:
//
//   std_mean / var_mean(x, ...) = (std / var with the same arguments, mean over the same dims)
//   nansum(x, dims) = sum of x with NaN read as 0; nanmean = nansum / count of non-NaN
//   linalg_vecdot(x, y, dim) = sum(x y, dim) (real tensors)
//   linalg_multi_dot(ms), chain_matmul(ms) = mm left to right (a 1-D first / last operand is a
//     row / column, squeezed from the result, as NumPy's multi_dot)
//   linalg_matrix_power(m, n) for n >= 0 = eye (n = 0) or products by repeated squaring
//   fftshift / ifftshift(x, dims) = roll by n // 2 / -(n // 2) along each dim (all by default)
//   linalg_norm(x, ord, dim) of a vector, over one dim, or without ord = linalg_vector_norm
//   cross(a, b) without dim = linalg_cross over the first dim of size 3 (PyTorch's old default)
//   special_xlog1py(x, y) = x log1p(y), 0 where x == 0 and y is not NaN
//   special_entr(x) = -x log(x) for x > 0, 0 at 0, -inf below 0 (NaN stays NaN)
#include "layout_rules.h"
#include "math_unary.h"

#include "tico/ir/shape_utils.h"
#include "tico/ir/tensor_data.h"

#include <limits>

namespace tico::decompose {

using passes::A;
using rewrite::Ints;
using namespace unary;

namespace {

std::vector<int64_t> allDims(const Value *x) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < x->rank(); ++d)
    dims.push_back(d);
  return dims;
}

// The dims a reduction node's `dim` argument names (every dim when it is None or empty) and its
// keepdim; nullopt when a dim is symbolic.
std::optional<std::pair<std::vector<int64_t>, bool>> reductionDims(const Node &n, const Value *x) {
  std::vector<int64_t> dims = allDims(x);
  if (const Argument *dim = n.findArg("dim"); dim != nullptr && !dim->isNone()) {
    const auto listed = staticInts(*dim);
    if (!listed)
      return std::nullopt;
    if (!listed->empty())
      dims = *listed;
  }
  const Argument *keep = n.findArg("keepdim");
  return std::make_pair(dims, keep != nullptr && keep->isBool() && keep->asBool());
}

// std_mean / var_mean: `statistic` ("aten::std" or "aten::var") with the node's own overload
// and arguments, and the mean over the same dims.
Rewrite statisticAndMean(std::string statistic) {
  return [statistic](Builder &b, Node &n) -> Replacement {
    Value *x = n.input("self");
    if (!isFloat32(x) || n.numOutputs() != 2)
      return std::nullopt;
    const OpKey op(n.op().ns, statistic, n.op().overload);
    const OpSchema *schema = b.graph().schemas() ? b.graph().schemas()->find(op) : nullptr;
    if (schema == nullptr || schema->arguments.size() != n.numArgs())
      return std::nullopt;
    std::vector<NamedArg> args;
    for (std::size_t i = 0; i < n.numArgs(); ++i)
      args.push_back(NamedArg{schema->arguments[i].name, n.arg(i)});
    const auto reduction = reductionDims(n, x); // checked before any node is built
    if (!reduction)
      return std::nullopt;
    const Value *spread = n.output(0);
    Value *first = b.node(op, std::move(args), {TensorTypeSpec{ValueKind::Tensor, spread->dtype(), spread->shape(), "", nullptr}},
                          "_" + statistic)
                       ->output();
    Value *mean = x->rank() == 0 ? b.make("aten::alias.default", {A(x)})
                                 : b.make("aten::mean.dim", {A(x), Ints(reduction->first), A(reduction->second)});
    return std::vector<Value *>{first, mean};
  };
}

Value *nanToZero(Builder &b, Value *x) { return where(b, b.make("aten::isnan.default", {A(x)}), A(0.0), A(x)); }

Value *sumOver(Builder &b, Value *x, const std::vector<int64_t> &dims, bool keepdim) {
  if (x->rank() == 0)
    return b.make("aten::alias.default", {A(x)});
  return b.make("aten::sum.dim_IntList", {A(x), Ints(dims), A(keepdim)});
}

Replacement nansum(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto reduction = reductionDims(n, x);
  if (!isFloat32(x) || !reduction || n.output()->dtype() != DType::Float32)
    return std::nullopt;
  return one(sumOver(b, nanToZero(b, x), reduction->first, reduction->second));
}

Replacement nanmean(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto reduction = reductionDims(n, x);
  if (!isFloat32(x) || !reduction || n.output()->dtype() != DType::Float32)
    return std::nullopt;
  Value *total = sumOver(b, nanToZero(b, x), reduction->first, reduction->second);
  Value *present = b.cast(b.make("aten::logical_not.default", {A(b.make("aten::isnan.default", {A(x)}))}), DType::Float32);
  Value *count = sumOver(b, present, reduction->first, reduction->second);
  return one(b.div(A(total), A(count)));
}

Replacement vecdot(Builder &b, Node &n) {
  Value *x = n.input("x"), *y = n.input("y");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  const int64_t dim = n.arg("dim").isInt() ? n.arg("dim").asInt() : -1;
  return one(b.make("aten::sum.dim_IntList", {A(b.mul(A(x), A(y))), Ints({dim})}));
}

Replacement multiDot(Builder &b, Node &n) {
  std::vector<Value *> ms = n.arg(0).asValues(); // `tensors` (multi_dot) or `matrices` (chain_matmul)
  if (ms.size() < 2)
    return std::nullopt;
  for (Value *m : ms)
    if (!isFloat32(m) || m->rank() < 1 || m->rank() > 2)
      return std::nullopt;
  const bool row = ms.front()->rank() == 1, column = ms.back()->rank() == 1;
  if (row)
    ms.front() = b.make("aten::unsqueeze.default", {A(ms.front()), A(int64_t{0})});
  if (column)
    ms.back() = b.make("aten::unsqueeze.default", {A(ms.back()), A(int64_t{1})});
  for (std::size_t i = 1; i + 1 < ms.size(); ++i)
    if (ms[i]->rank() != 2)
      return std::nullopt;
  Value *product = ms[0];
  for (std::size_t i = 1; i < ms.size(); ++i)
    product = b.make("aten::mm.default", {A(product), A(ms[i])});
  std::vector<int64_t> squeezed;
  if (row)
    squeezed.push_back(0);
  if (column)
    squeezed.push_back(1);
  if (!squeezed.empty())
    product = b.make("aten::squeeze.dims", {A(product), Ints(squeezed)});
  return one(product);
}

Replacement matrixPower(Builder &b, Node &n) {
  Value *m = n.input("self");
  const std::optional<int64_t> power = passes::staticInt(n.arg("n"));
  if (!isFloat32(m) || !power || *power < 0 || m->rank() < 2 || !isStatic(m->shape()))
    return std::nullopt; // a negative power needs an inverse
  const std::vector<int64_t> sizes = hintSizes(m->shape());
  const int64_t k = sizes.back();
  if (*power == 0) {
    std::vector<float> eye(static_cast<std::size_t>(k * k), 0.0f);
    for (int64_t i = 0; i < k; ++i)
      eye[static_cast<std::size_t>(i * k + i)] = 1.0f;
    Value *identity = b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {k, k}, eye)), "eye");
    return one(b.expand(identity, m->shape()));
  }
  const char *mm = m->rank() == 2 ? "aten::mm.default" : "aten::matmul.default";
  Value *result = nullptr, *square = m;
  for (int64_t e = *power; e > 0; e >>= 1) {
    if (e & 1)
      result = result == nullptr ? square : b.make(mm, {A(result), A(square)});
    if (e > 1)
      square = b.make(mm, {A(square), A(square)});
  }
  return one(result == m ? b.make("aten::alias.default", {A(m)}) : result);
}

Rewrite fftShift(bool inverse) {
  return [inverse](Builder &b, Node &n) -> Replacement {
    Value *x = n.input("self");
    if (!isStatic(x->shape()) || x->rank() == 0)
      return std::nullopt;
    std::vector<int64_t> dims = allDims(x);
    if (const Argument *dim = n.findArg("dim"); dim != nullptr && !dim->isNone()) {
      const auto listed = staticInts(*dim);
      if (!listed)
        return std::nullopt;
      dims = *listed;
    }
    std::vector<int64_t> shifts;
    for (int64_t &d : dims) {
      d = normalizeDim(d, x->rank());
      const int64_t size = x->shape()[static_cast<std::size_t>(d)].value();
      shifts.push_back(inverse ? -(size / 2) : size / 2);
    }
    return one(b.typed("aten::roll.default",
                       {rewrite::kw("self", A(x)), rewrite::kw("shifts", Ints(shifts)), rewrite::kw("dims", Ints(dims))},
                       x->dtype(), x->shape()));
  };
}

Replacement crossWithoutDim(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  const Argument &dim = n.arg("dim");
  int64_t axis = -1;
  if (dim.isInt()) {
    axis = dim.asInt();
  } else {
    for (int64_t d = 0; d < x->rank() && axis < 0; ++d)
      if (x->shape()[static_cast<std::size_t>(d)].isStatic() && x->shape()[static_cast<std::size_t>(d)].value() == 3)
        axis = d;
    if (axis < 0)
      return std::nullopt;
  }
  return one(b.typed("aten::linalg_cross.default",
                     {rewrite::kw("self", A(x)), rewrite::kw("other", A(y)), rewrite::kw("dim", A(axis))},
                     n.output()->dtype(), n.output()->shape()));
}

// linalg_norm as a vector norm: a vector, one dim, or no ord (the Frobenius norm is the 2-norm of
// the matrix's elements); a matrix norm with an ord (nuclear, spectral, ...) is left alone.
Replacement linalgNorm(Builder &b, Node &n) {
  Value *x = n.input("self");
  const Argument &ord = n.arg("ord");
  const Argument &dim = n.arg("dim");
  const auto dims = dim.isNone() ? std::optional(allDims(x)) : staticInts(dim);
  if (!isFloat32(x) || !dims || ord.kind() == Argument::Kind::String)
    return std::nullopt;
  const bool vector = dims->size() == 1 || (dim.isNone() && x->rank() == 1);
  if (!vector && !ord.isNone())
    return std::nullopt;
  const Argument order = ord.isNone() ? A(2.0) : ord;
  return one(b.typed("aten::linalg_vector_norm.default",
                     {rewrite::kw("self", A(x)), rewrite::kw("ord", order), rewrite::kw("dim", Ints(*dims)),
                      rewrite::kw("keepdim", n.arg("keepdim")), rewrite::kw("dtype", n.arg("dtype"))},
                     n.output()->dtype(), n.output()->shape()));
}

Replacement xlog1py(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  return one(zeroWhereXIsZero(b, x, y, b.mul(A(x), A(log1p(b, y)))));
}

Replacement entr(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x))
    return std::nullopt;
  Value *positive = neg(b, b.mul(A(x), A(log(b, x))));
  Value *at_zero = where(b, b.make("aten::eq.Scalar", {A(x), A(0.0)}), A(0.0), A(positive));
  return one(where(b, lt(b, x, 0.0), A(-std::numeric_limits<double>::infinity()), A(at_zero)));
}

} // namespace

std::vector<Rule> mathCompositeRules() {
  return {{"aten::std_mean.correction", statisticAndMean("std")},
          {"aten::std_mean.dim", statisticAndMean("std")},
          {"aten::std_mean.default", statisticAndMean("std")},
          {"aten::var_mean.correction", statisticAndMean("var")},
          {"aten::var_mean.dim", statisticAndMean("var")},
          {"aten::var_mean.default", statisticAndMean("var")},
          {"aten::nansum.default", nansum},
          {"aten::nanmean.default", nanmean},
          {"aten::linalg_vecdot.default", vecdot},
          {"aten::linalg_multi_dot.default", multiDot},
          {"aten::chain_matmul.default", multiDot},
          {"aten::linalg_matrix_power.default", matrixPower},
          {"aten::fft_fftshift.default", fftShift(false)},
          {"aten::fft_ifftshift.default", fftShift(true)},
          {"aten::cross.default", crossWithoutDim},
          {"aten::special_xlog1py.default", xlog1py},
          {"aten::special_entr.default", entr},
          {"aten::linalg_norm.default", linalgNorm}};
}

} // namespace tico::decompose
