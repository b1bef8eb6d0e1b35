// Convenience and alias ops that plain torch.export keeps whole (they are CompositeImplicit in
// PyTorch, so only run_decompositions() would expand them), written as the ops they stand for:
//
//   numpy_T(x) = permute(x, reversed dims)     mT(x), mH(x) (real) = transpose(x, -2, -1)
//   reshape_as(x, o), view_as(x, o) = reshape(x, o's shape) (symbolic dims taken from o)
//   atleast_1d/2d/3d(x) = x with leading (and, for 3-d, trailing) dims of 1 added, as NumPy
//   hstack / vstack / dstack(xs) = cat of the atleast_1d/2d/3d forms along 0 or 1 / 0 / 2
//   addcmul(x, a, b, value) = x + value * a * b     addcdiv(x, a, b, value) = x + value * (a / b)
//   lerp(x, end, w) = x + w (end - x) where |w| < 0.5, end - (end - x)(1 - w) elsewhere
//                     (PyTorch's two-sided form: exact at w = 0 and w = 1)
//   hypot(x, y) = sqrt(x^2 + y^2)          logaddexp(x, y) = max + log1p(exp(-|x - y|))
//   xlogy(x, y) = 0 where x == 0 (y not NaN), x log(y) elsewhere
//   fmod(x, y) = x - trunc(x / y) y (float; the sign follows x)
//   copysign(x, y) = |x| where y > 0 or y is +0, -|x| where y < 0 (a -0.0 divisor is read as
//                    +0: Circle has no sign-bit test)
//   dot(a, b) = sum(a * b)                 mv(m, v) = sum(m * v, -1)
//   addr(m, u, v, beta, alpha) = beta m + alpha u[:, None] v (m ignored when beta = 0)
//   logsumexp(x, dims) = m + log(sum(exp(x - m))), m = amax(x) (0 where m is infinite)
//   aminmax(x, dim) = (amin, amax)          count_nonzero(x, dims) = sum(x != 0) as int64
//   bitwise_not(x) = -1 - x (integers), logical_not (bool)
//   cosine_similarity(a, b, dim, eps) = sum(a b) / sqrt(max(sum(a^2) sum(b^2), eps^2))
//   pairwise_distance(a, b, p, eps) = the p-norm of a - b + eps over the last dim (p > 0, inf)
//   one_hot(i, n) = (unsqueeze(i, -1) == arange(n)) as int64 (n given)
//   pixel_unshuffle(x, r) = reshape / permute / reshape (inverse of pixel_shuffle)
//   channel_shuffle(x, g) = reshape to [N, g, C/g, ...], transpose(1, 2), reshape back
//   diagonal(x, offset, d1, d2) of static dims: the two dims moved last, flattened, and read
//     with a strided slice (step = columns + 1); diag(x) of a matrix, trace(x) = sum(diagonal)
//   tensor_split(x, sections, dim) = slices, the first size % sections one longer
//   unfold(x, dim, size, step) = index_select of every window's positions, reshaped, window last
//   kron(a, b) = a[i, None, j, None] * b[None, k, None, l] reshaped (equal ranks)
//   linalg_cross(a, b, dim) = a[1,2,0] b[2,0,1] - a[2,0,1] b[1,2,0] along dim (index_select)
//   cdist(x1, x2, p) = p-norm of x1[..., :, None, :] - x2[..., None, :, :] (direct, no mm shortcut)
//   tensordot(a, b, da, db) = permute + reshape both to matrices, mm, reshape (a contracted dim
//                     of size 1 against n: the other side summed over it first, as ATen)
//
// Rules leave a node alone (nullopt) where a needed size is symbolic.
#include "layout_rules.h"
#include "math_unary.h"

#include "tico/ir/shape_utils.h"
#include "tico/ir/tensor_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tico::decompose {

using passes::A;
using rewrite::Ints;
using namespace unary;

// The diagonal (offset, dims d1 and d2) of a statically shaped x, as the last dim of the result
// (declared in layout_rules.h; einsum reads diagonals with it too).
Value *diagonalOf(Builder &b, Value *x, int64_t offset, int64_t d1, int64_t d2) {
  const std::optional<std::vector<int64_t>> shape =
      isStatic(x->shape()) ? std::optional(hintSizes(x->shape())) : std::nullopt;
  const int64_t rank = x->rank();
  if (!shape || rank < 2)
    return nullptr;
  d1 = normalizeDim(d1, rank);
  d2 = normalizeDim(d2, rank);
  if (d1 == d2)
    return nullptr;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != d1 && d != d2)
      perm.push_back(d);
  perm.push_back(d1);
  perm.push_back(d2);
  const int64_t rows = (*shape)[static_cast<std::size_t>(d1)], cols = (*shape)[static_cast<std::size_t>(d2)];
  const int64_t length = std::max<int64_t>(0, offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols));
  if (length == 0)
    return nullptr; // an empty diagonal: left to the lowering's error
  Shape flat;
  for (std::size_t i = 0; i + 2 < perm.size(); ++i)
    flat.push_back(Dim((*shape)[static_cast<std::size_t>(perm[i])]));
  flat.push_back(Dim(rows * cols));
  Value *moved = b.permute(x, perm);
  Value *flattened = b.reshape(moved, flat);
  const int64_t start = offset >= 0 ? offset : -offset * cols;
  const int64_t end = start + (length - 1) * (cols + 1) + 1;
  return b.make("aten::slice.Tensor", {A(flattened), A(int64_t{-1}), A(start), A(end), A(cols + 1)});
}

namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = i;
  return v;
}

Replacement numpyT(Builder &b, Node &n) {
  Value *x = n.input("self");
  std::vector<int64_t> perm = iota(x->rank());
  std::reverse(perm.begin(), perm.end());
  return one(x->rank() < 2 ? b.make("aten::alias.default", {A(x)}) : b.permute(x, perm));
}

Replacement matrixTranspose(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() < 2)
    return std::nullopt;
  std::vector<int64_t> perm = iota(x->rank());
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return one(b.permute(x, perm));
}

Replacement reshapeAs(Builder &b, Node &n) {
  Value *other = n.input("other");
  return one(b.reshape(n.input("self"), other->shape(), {other}));
}

// x with `rank` dims at least: 1-d and 2-d gain leading ones; atleast_3d puts a 1-d x in the
// middle ([1, n, 1]) and a 2-d x first ([m, n, 1]), as NumPy.
Value *atLeast(Builder &b, Value *x, int64_t rank) {
  Shape shape = x->shape();
  if (static_cast<int64_t>(shape.size()) >= rank)
    return x;
  if (rank == 3 && shape.size() == 1)
    shape = {Dim(1), shape[0], Dim(1)};
  else if (rank == 3 && shape.size() == 2)
    shape.push_back(Dim(1));
  else
    while (static_cast<int64_t>(shape.size()) < rank)
      shape.insert(shape.begin(), Dim(1));
  return b.reshape(x, shape, {x});
}

Rewrite atLeastRule(int64_t rank) {
  return [rank](Builder &b, Node &n) { return one(atLeast(b, n.input("self"), rank)); };
}

Rewrite stackRule(char kind) {
  return [kind](Builder &b, Node &n) -> Replacement {
    const auto &inputs = n.arg("tensors").asValues();
    if (inputs.empty())
      return std::nullopt;
    std::vector<Value *> parts;
    int64_t rank = kind == 'v' ? 2 : kind == 'd' ? 3 : 1;
    for (Value *x : inputs)
      parts.push_back(atLeast(b, x, rank));
    int64_t dim = kind == 'v' ? 0 : kind == 'd' ? 2 : (parts.front()->rank() == 1 ? 0 : 1);
    return one(b.make("aten::cat.default", {Argument::values(parts), A(dim)}));
  };
}

Replacement addcmul(Builder &b, Node &n) {
  Value *x = n.input("self");
  Value *product = b.mul(A(n.input("tensor1")), A(n.input("tensor2")));
  const double value = numberArg(n, "value", 1.0);
  if (value != 1.0)
    product = b.mul(A(product), A(value));
  return one(b.add(A(x), A(product)));
}

// PyTorch refuses integer addcdiv; float32 only, as its CPU kernel computes it.
Replacement addcdiv(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloat32(x) || !isFloat32(n.input("tensor1")) || !isFloat32(n.input("tensor2")))
    return std::nullopt;
  Value *quotient = b.div(A(n.input("tensor1")), A(n.input("tensor2")));
  const double value = numberArg(n, "value", 1.0);
  if (value != 1.0)
    quotient = b.mul(A(quotient), A(value));
  return one(b.add(A(x), A(quotient)));
}

Replacement lerp(Builder &b, Node &n) {
  Value *x = n.input("self");
  Value *end = n.input("end");
  if (!isFloat32(x))
    return std::nullopt;
  Value *diff = b.sub(A(end), A(x));
  const Argument &w = n.arg("weight");
  if (!w.isValue()) {
    const double weight = numberArg(n, "weight", 0.0);
    if (std::abs(weight) < 0.5)
      return one(b.add(A(x), A(b.mul(A(diff), A(weight)))));
    return one(b.sub(A(end), A(b.mul(A(diff), A(1.0 - weight)))));
  }
  Value *weight = w.asValue();
  Value *low = b.add(A(x), A(b.mul(A(diff), A(weight))));
  Value *high = b.sub(A(end), A(b.mul(A(diff), A(b.make("aten::rsub.Scalar", {A(weight), A(1.0)})))));
  Value *small = lt(b, abs(b, weight), 0.5);
  return one(where(b, small, A(low), A(high)));
}

Replacement hypot(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  Value *xx = b.mul(A(x), A(x));
  Value *yy = b.mul(A(y), A(y));
  return one(sqrt(b, b.add(A(xx), A(yy))));
}

Replacement logaddexp(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  Value *high = b.make("aten::maximum.default", {A(x), A(y)});
  Value *gap = neg(b, abs(b, b.sub(A(x), A(y))));
  Value *sum = b.add(A(high), A(log1p(b, exp(b, gap))));
  // Equal infinities: the gap is NaN, the sum is that infinity.
  Value *equal = b.make("aten::eq.Tensor", {A(x), A(y)});
  Value *doubled = b.add(A(x), A(std::log(2.0)));
  return one(where(b, equal, A(doubled), A(sum)));
}

Replacement xlogy(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  return one(zeroWhereXIsZero(b, x, y, b.mul(A(x), A(log(b, y)))));
}

Replacement fmod(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  Value *quotient = b.make("aten::trunc.default", {A(b.div(A(x), A(y)))});
  return one(b.sub(A(x), A(b.mul(A(quotient), A(y)))));
}

Replacement copysign(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  Value *magnitude = abs(b, x);
  return one(where(b, lt(b, y, 0.0), A(neg(b, magnitude)), A(magnitude)));
}

// dot(self, tensor) and vdot(self, other): the second operand by position (the two schemas
// name it differently); vdot conjugates the first, which is the identity on real tensors.
Replacement dot(Builder &b, Node &n) {
  Value *product = b.mul(A(n.input(0)), A(n.input(1)));
  return one(b.make("aten::sum.dim_IntList", {A(product), Ints({0})}));
}

Replacement mv(Builder &b, Node &n) {
  Value *product = b.mul(A(n.input("self")), A(n.input("vec")));
  return one(b.make("aten::sum.dim_IntList", {A(product), Ints({-1})}));
}

Replacement addr(Builder &b, Node &n) {
  Value *m = n.input("self");
  Value *column = b.make("aten::unsqueeze.default", {A(n.input("vec1")), A(int64_t{1})});
  Value *outer = b.mul(A(column), A(n.input("vec2")));
  const double beta = numberArg(n, "beta", 1.0), alpha = numberArg(n, "alpha", 1.0);
  if (alpha != 1.0)
    outer = b.mul(A(outer), A(alpha));
  if (beta == 0.0) // PyTorch ignores self then (NaN and inf in it too)
    return one(outer);
  Value *scaled = beta == 1.0 ? m : b.mul(A(m), A(beta));
  return one(b.add(A(scaled), A(outer)));
}

Replacement logsumexp(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<std::vector<int64_t>> dims = staticInts(n.arg("dim"));
  if (!isFloat32(x) || !dims)
    return std::nullopt;
  if (x->rank() == 0) // log(exp(x)) over the one element: x itself (infinities and NaN too)
    return one(b.make("aten::alias.default", {A(x)}));
  const bool keepdim = n.arg("keepdim").isBool() && n.arg("keepdim").asBool();
  Value *high = b.make("aten::amax.default", {A(x), Ints(*dims), A(true)});
  // An infinite maximum (all -inf, or a +inf) is replaced by 0 so x - m stays finite where it can.
  Value *finite = b.make("aten::isinf.default", {A(high)});
  Value *shift = where(b, finite, A(0.0), A(high));
  Value *sum = b.make("aten::sum.dim_IntList", {A(exp(b, b.sub(A(x), A(shift)))), Ints(*dims), A(keepdim)});
  Value *kept_shift = keepdim ? shift : b.make("aten::squeeze.dims", {A(shift), Ints(*dims)});
  return one(b.add(A(log(b, sum)), A(kept_shift)));
}

Replacement aminmax(Builder &b, Node &n) {
  Value *x = n.input("self");
  const bool keepdim = n.arg("keepdim").isBool() && n.arg("keepdim").asBool();
  const Argument &dim = n.arg("dim");
  std::vector<int64_t> dims;
  if (dim.isInt())
    dims = {dim.asInt()};
  else
    dims = iota(x->rank()); // every dim (keepdim keeps them all as 1)
  return std::vector<Value *>{b.make("aten::amin.default", {A(x), Ints(dims), A(keepdim)}),
                              b.make("aten::amax.default", {A(x), Ints(dims), A(keepdim)})};
}

Replacement countNonzero(Builder &b, Node &n) {
  Value *x = n.input("self");
  Value *nonzero = b.cast(b.make("aten::ne.Scalar", {A(x), A(0.0)}), DType::Int64);
  std::vector<int64_t> dims;
  const Argument &dim = n.arg("dim");
  if (dim.isInt())
    dims = {dim.asInt()};
  else if (auto list = staticInts(dim))
    dims = *list;
  if (dims.empty())
    dims = iota(x->rank());
  if (x->rank() == 0)
    return one(nonzero);
  return one(b.make("aten::sum.dim_IntList", {A(nonzero), Ints(dims)}));
}

Replacement bitwiseNot(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->dtype() == DType::Bool)
    return one(b.make("aten::logical_not.default", {A(x)}));
  if (x->dtype() != DType::Int32 && x->dtype() != DType::Int64)
    return std::nullopt;
  return one(b.make("aten::rsub.Scalar", {A(x), A(int64_t{-1})}));
}

Replacement cosineSimilarity(Builder &b, Node &n) {
  Value *x1 = n.input("x1"), *x2 = n.input("x2");
  if (!isFloat32(x1) || !isFloat32(x2))
    return std::nullopt;
  const int64_t dim = n.arg("dim").isInt() ? n.arg("dim").asInt() : 1;
  const double eps = numberArg(n, "eps", 1e-8);
  auto sumOver = [&](Value *v) { return b.make("aten::sum.dim_IntList", {A(v), Ints({dim})}); };
  Value *dotted = sumOver(b.mul(A(x1), A(x2)));
  Value *squares1 = sumOver(b.mul(A(x1), A(x1)));
  Value *squares2 = sumOver(b.mul(A(x2), A(x2)));
  Value *norms = b.mul(A(squares1), A(squares2));
  Value *clamped = b.make("aten::clamp_min.default", {A(norms), A(eps * eps)});
  return one(b.div(A(dotted), A(sqrt(b, clamped))));
}

// The p-norm (p > 0 or infinite) of `diff` over its last dim: amax(|d|), sum(|d|),
// sqrt(sum(d^2)) or sum(|d|^p)^(1/p).
Value *pNormOfLastDim(Builder &b, Value *diff, double p, bool keepdim) {
  Value *magnitude = abs(b, diff);
  auto sumLast = [&](Value *v) { return b.make("aten::sum.dim_IntList", {A(v), Ints({-1}), A(keepdim)}); };
  if (std::isinf(p))
    return b.make("aten::amax.default", {A(magnitude), Ints({-1}), A(keepdim)});
  if (p == 1.0)
    return sumLast(magnitude);
  if (p == 2.0)
    return sqrt(b, sumLast(b.mul(A(diff), A(diff))));
  Value *powered = b.make("aten::pow.Tensor_Scalar", {A(magnitude), A(p)});
  return b.make("aten::pow.Tensor_Scalar", {A(sumLast(powered)), A(1.0 / p)});
}

Replacement pairwiseDistance(Builder &b, Node &n) {
  Value *x1 = n.input("x1"), *x2 = n.input("x2");
  if (!isFloat32(x1) || !isFloat32(x2))
    return std::nullopt;
  const double p = numberArg(n, "p", 2.0), eps = numberArg(n, "eps", 1e-6);
  const bool keepdim = n.arg("keepdim").isBool() && n.arg("keepdim").asBool();
  Value *diff = b.add(A(b.sub(A(x1), A(x2))), A(eps));
  if (diff->rank() == 0 || p <= 0.0)
    return std::nullopt;
  return one(pNormOfLastDim(b, diff, p, keepdim));
}

Replacement oneHot(Builder &b, Node &n) {
  Value *x = n.input("self");
  const int64_t classes = n.arg("num_classes").isInt() ? n.arg("num_classes").asInt() : -1;
  if (classes <= 0 || x->dtype() != DType::Int64) // -1: the classes depend on the values
    return std::nullopt;
  std::vector<int64_t> values = iota(classes);
  auto data = std::make_shared<TensorData>(TensorData::fromVector(DType::Int64, {classes}, values));
  Value *range = b.constant(std::move(data), "classes");
  Value *column = b.make("aten::unsqueeze.default", {A(x), A(int64_t{-1})});
  return one(b.cast(b.make("aten::eq.Tensor", {A(column), A(range)}), DType::Int64));
}

// The sizes of x when every dim is static.
std::optional<std::vector<int64_t>> staticSizes(const Value *x) {
  if (!isStatic(x->shape()))
    return std::nullopt;
  return hintSizes(x->shape());
}

Replacement pixelUnshuffle(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto shape = staticSizes(x);
  const std::optional<int64_t> r = passes::staticInt(n.arg("downscale_factor"));
  if (!shape || !r || *r < 1 || shape->size() < 3)
    return std::nullopt;
  const std::size_t k = shape->size();
  const int64_t c = (*shape)[k - 3], h = (*shape)[k - 2], w = (*shape)[k - 1];
  if (h % *r != 0 || w % *r != 0)
    return std::nullopt;
  std::vector<int64_t> batch(shape->begin(), shape->end() - 3);
  int64_t outer = 1;
  for (int64_t d : batch)
    outer *= d;
  // [B, C, H/r, r, W/r, r] -> [B, C, r, r, H/r, W/r] -> [..., C r r, H/r, W/r]
  Value *split = b.reshape(x, {Dim(outer), Dim(c), Dim(h / *r), Dim(*r), Dim(w / *r), Dim(*r)});
  Value *moved = b.permute(split, {0, 1, 3, 5, 2, 4});
  Shape target;
  for (int64_t d : batch)
    target.push_back(Dim(d));
  for (int64_t d : {c * *r * *r, h / *r, w / *r})
    target.push_back(Dim(d));
  return one(b.reshape(moved, target));
}

Replacement channelShuffle(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto shape = staticSizes(x);
  const std::optional<int64_t> groups = passes::staticInt(n.arg("groups"));
  if (!shape || !groups || *groups < 1 || shape->size() < 3 || (*shape)[1] % *groups != 0)
    return std::nullopt;
  int64_t spatial = 1;
  for (std::size_t d = 2; d < shape->size(); ++d)
    spatial *= (*shape)[d];
  Value *grouped = b.reshape(x, {Dim((*shape)[0]), Dim(*groups), Dim((*shape)[1] / *groups), Dim(spatial)});
  Value *swapped = b.permute(grouped, {0, 2, 1, 3});
  Shape target;
  for (int64_t d : *shape)
    target.push_back(Dim(d));
  return one(b.reshape(swapped, target));
}

Replacement diagonal(Builder &b, Node &n) {
  const int64_t offset = n.arg("offset").isInt() ? n.arg("offset").asInt() : 0;
  const int64_t d1 = n.arg("dim1").isInt() ? n.arg("dim1").asInt() : 0;
  const int64_t d2 = n.arg("dim2").isInt() ? n.arg("dim2").asInt() : 1;
  return one(diagonalOf(b, n.input("self"), offset, d1, d2));
}

Replacement diag(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() != 2) // diag of a vector builds a matrix: not written out here
    return std::nullopt;
  return one(diagonalOf(b, x, n.arg("diagonal").isInt() ? n.arg("diagonal").asInt() : 0, 0, 1));
}

Replacement trace(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() != 2)
    return std::nullopt;
  Value *d = diagonalOf(b, x, 0, 0, 1);
  return d ? one(b.make("aten::sum.default", {A(d)})) : std::nullopt;
}

Value *int64Constant(Builder &b, const std::vector<int64_t> &values, const std::string &suffix) {
  return b.constant(std::make_shared<const TensorData>(
                        TensorData::fromVector(DType::Int64, {static_cast<int64_t>(values.size())}, values)),
                    suffix);
}

// tensor_split(x, sections, dim): the first size % sections pieces one longer (PyTorch's rule).
Replacement tensorSplit(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<int64_t> sections = passes::staticInt(n.arg("sections"));
  if (x->rank() == 0 || !sections || *sections < 1 || static_cast<int64_t>(n.numOutputs()) != *sections)
    return std::nullopt;
  const int64_t dim = normalizeDim(n.arg("dim").isInt() ? n.arg("dim").asInt() : 0, x->rank());
  const Dim &extent = x->shape()[static_cast<std::size_t>(dim)];
  if (!extent.isStatic())
    return std::nullopt;
  const int64_t size = extent.value(), base = size / *sections, longer = size % *sections;
  std::vector<Value *> out;
  int64_t begin = 0;
  for (int64_t i = 0; i < *sections; ++i) {
    const int64_t end = begin + base + (i < longer ? 1 : 0);
    out.push_back(b.make("aten::slice.Tensor", {A(x), A(dim), A(begin), A(end), A(int64_t{1})}));
    begin = end;
  }
  return out;
}

// unfold(x, dim, size, step): one GATHER of every window's positions along dim, reshaped to
// [..., windows, size, ...] and the window dim moved last.
Replacement unfold(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto shape = staticSizes(x);
  const std::optional<int64_t> size = passes::staticInt(n.arg("size"));
  const std::optional<int64_t> step = passes::staticInt(n.arg("step"));
  if (shape && shape->empty() && size == 1 && step && *step >= 1) // a 0-d tensor's one window: [x]
    return one(b.make("aten::reshape.default", {A(x), Ints({1})}));
  if (!shape || shape->empty() || !size || !step || *size < 1 || *step < 1)
    return std::nullopt;
  const int64_t dim = normalizeDim(n.arg("dimension").asInt(), x->rank());
  const int64_t length = (*shape)[static_cast<std::size_t>(dim)];
  if (length < *size)
    return std::nullopt;
  const int64_t windows = (length - *size) / *step + 1;
  std::vector<int64_t> positions;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t k = 0; k < *size; ++k)
      positions.push_back(w * *step + k);
  Value *gathered = b.make("aten::index_select.default", {A(x), A(dim), A(int64Constant(b, positions, "windows"))});
  std::vector<int64_t> split = *shape;
  split[static_cast<std::size_t>(dim)] = *size;
  split.insert(split.begin() + dim, windows);
  Value *windowed = b.reshape(gathered, staticShape(split));
  std::vector<int64_t> perm = iota(static_cast<int64_t>(split.size()));
  perm.erase(perm.begin() + dim + 1);
  perm.push_back(dim + 1);
  return one(b.permute(windowed, perm));
}

// kron(a, b) of equal ranks: a[i, None, j, None] * b[None, k, None, l], reshaped.
Replacement kron(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  const auto xs = staticSizes(x), ys = staticSizes(y);
  if (!xs || !ys || xs->size() != ys->size() || xs->empty())
    return std::nullopt;
  std::vector<int64_t> xi, yi, out;
  for (std::size_t d = 0; d < xs->size(); ++d) {
    xi.insert(xi.end(), {(*xs)[d], 1});
    yi.insert(yi.end(), {1, (*ys)[d]});
    out.push_back((*xs)[d] * (*ys)[d]);
  }
  Value *spread_x = b.reshape(x, staticShape(xi));
  Value *spread_y = b.reshape(y, staticShape(yi));
  return one(b.reshape(b.mul(A(spread_x), A(spread_y)), staticShape(out)));
}

// linalg_cross(a, b, dim) over a dim of 3: a[1,2,0] b[2,0,1] - a[2,0,1] b[1,2,0].
Replacement cross(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y) || x->rank() == 0 || x->rank() != y->rank())
    return std::nullopt;
  const int64_t dim = normalizeDim(n.arg("dim").isInt() ? n.arg("dim").asInt() : -1, x->rank());
  const Dim &dx = x->shape()[static_cast<std::size_t>(dim)], &dy = y->shape()[static_cast<std::size_t>(dim)];
  if (!dx.isStatic() || !dy.isStatic() || dx.value() != 3 || dy.value() != 3)
    return std::nullopt;
  Value *next = int64Constant(b, {1, 2, 0}, "next"), *after = int64Constant(b, {2, 0, 1}, "after");
  auto pick = [&](Value *v, Value *index) { return b.make("aten::index_select.default", {A(v), A(dim), A(index)}); };
  // One node per statement: the order of a call's arguments is unspecified, the graph's must not be.
  Value *x_next = pick(x, next);
  Value *y_after = pick(y, after);
  Value *first = b.mul(A(x_next), A(y_after));
  Value *x_after = pick(x, after);
  Value *y_next = pick(y, next);
  Value *second = b.mul(A(x_after), A(y_next));
  return one(b.sub(A(first), A(second)));
}

// cdist(x1 [..., P, M], x2 [..., R, M], p): the p-norm of x1[..., :, None, :] - x2[..., None, :, :]
// over M, computed directly (PyTorch's matrix-product shortcut for p = 2 is an approximation).
Replacement cdist(Builder &b, Node &n) {
  Value *x1 = n.input("x1"), *x2 = n.input("x2");
  const double p = numberArg(n, "p", 2.0);
  if (!isFloat32(x1) || !isFloat32(x2) || x1->rank() < 2 || x2->rank() < 2 || p <= 0.0)
    return std::nullopt;
  Value *rows = b.make("aten::unsqueeze.default", {A(x1), A(int64_t{-2})});
  Value *columns = b.make("aten::unsqueeze.default", {A(x2), A(int64_t{-3})});
  Value *diff = b.sub(A(rows), A(columns));
  return one(pNormOfLastDim(b, diff, p, false));
}

// tensordot(a, b, dims_a, dims_b): the contracted dims of a moved last and of b first, both
// flattened to matrices, one mm, reshaped to a's free dims then b's.
Replacement tensordot(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  auto xs = staticSizes(x), ys = staticSizes(y);
  const auto dx = staticInts(n.arg("dims_self")), dy = staticInts(n.arg("dims_other"));
  if (!xs || !ys || !dx || !dy || dx->size() != dy->size() || !isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  // A contracted pair of sizes n and 1 broadcasts: the side of size n is summed first (ATen).
  for (std::size_t i = 0; i < dx->size(); ++i) {
    const auto ix = static_cast<std::size_t>(normalizeDim((*dx)[i], x->rank()));
    const auto iy = static_cast<std::size_t>(normalizeDim((*dy)[i], y->rank()));
    if ((*xs)[ix] != 1 && (*ys)[iy] == 1) {
      x = b.make("aten::sum.dim_IntList", {A(x), Ints({static_cast<int64_t>(ix)}), A(true)});
      (*xs)[ix] = 1;
    } else if ((*xs)[ix] == 1 && (*ys)[iy] != 1) {
      y = b.make("aten::sum.dim_IntList", {A(y), Ints({static_cast<int64_t>(iy)}), A(true)});
      (*ys)[iy] = 1;
    }
  }
  auto arrange = [](const std::vector<int64_t> &shape, std::vector<int64_t> contracted, bool contracted_last,
                    std::vector<int64_t> &perm, std::vector<int64_t> &free, int64_t &free_size, int64_t &k) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    for (auto &d : contracted)
      d = normalizeDim(d, rank);
    free_size = 1;
    k = 1;
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < rank; ++d)
      if (std::find(contracted.begin(), contracted.end(), d) == contracted.end()) {
        kept.push_back(d);
        free.push_back(shape[static_cast<std::size_t>(d)]);
        free_size *= shape[static_cast<std::size_t>(d)];
      }
    for (int64_t d : contracted)
      k *= shape[static_cast<std::size_t>(d)];
    perm = contracted_last ? kept : contracted;
    perm.insert(perm.end(), contracted_last ? contracted.begin() : kept.begin(),
                contracted_last ? contracted.end() : kept.end());
  };
  std::vector<int64_t> px, py, fx, fy;
  int64_t mx = 0, kx = 0, my = 0, ky = 0;
  arrange(*xs, *dx, true, px, fx, mx, kx);
  arrange(*ys, *dy, false, py, fy, my, ky);
  if (kx != ky)
    return std::nullopt;
  for (std::size_t i = 0; i < dx->size(); ++i)
    if ((*xs)[static_cast<std::size_t>(normalizeDim((*dx)[i], x->rank()))] !=
        (*ys)[static_cast<std::size_t>(normalizeDim((*dy)[i], y->rank()))])
      return std::nullopt;
  Value *a = b.reshape(b.permute(x, px), staticShape({mx, kx}));
  Value *c = b.reshape(b.permute(y, py), staticShape({ky, my}));
  std::vector<int64_t> out = fx;
  out.insert(out.end(), fy.begin(), fy.end());
  return one(b.reshape(b.make("aten::mm.default", {A(a), A(c)}), staticShape(out)));
}

} // namespace

std::vector<Rule> convenienceRules() {
  return {{"aten::numpy_T.default", numpyT},
          {"aten::mT.default", matrixTranspose},
          {"aten::mH.default", matrixTranspose},
          {"aten::adjoint.default", matrixTranspose},
          {"aten::reshape_as.default", reshapeAs},
          {"aten::view_as.default", reshapeAs},
          {"aten::atleast_1d.default", atLeastRule(1)},
          {"aten::atleast_2d.default", atLeastRule(2)},
          {"aten::atleast_3d.default", atLeastRule(3)},
          {"aten::hstack.default", stackRule('h')},
          {"aten::vstack.default", stackRule('v')},
          {"aten::row_stack.default", stackRule('v')},
          {"aten::dstack.default", stackRule('d')},
          {"aten::addcmul.default", addcmul},
          {"aten::addcdiv.default", addcdiv},
          {"aten::lerp.Scalar", lerp},
          {"aten::lerp.Tensor", lerp},
          {"aten::hypot.default", hypot},
          {"aten::logaddexp.default", logaddexp},
          {"aten::xlogy.Tensor", xlogy},
          {"aten::special_xlogy.default", xlogy},
          {"aten::fmod.Tensor", fmod},
          {"aten::copysign.Tensor", copysign},
          {"aten::dot.default", dot},
          {"aten::vdot.default", dot},
          {"aten::mv.default", mv},
          {"aten::addr.default", addr},
          {"aten::logsumexp.default", logsumexp},
          {"aten::special_logsumexp.default", logsumexp},
          {"aten::aminmax.default", aminmax},
          {"aten::count_nonzero.default", countNonzero},
          {"aten::count_nonzero.dim_IntList", countNonzero},
          {"aten::bitwise_not.default", bitwiseNot},
          {"aten::cosine_similarity.default", cosineSimilarity},
          {"aten::pairwise_distance.default", pairwiseDistance},
          {"aten::one_hot.default", oneHot},
          {"aten::pixel_unshuffle.default", pixelUnshuffle},
          {"aten::channel_shuffle.default", channelShuffle},
          {"aten::native_channel_shuffle.default", channelShuffle},
          {"aten::diagonal.default", diagonal},
          {"aten::diag.default", diag},
          {"aten::trace.default", trace},
          {"aten::tensor_split.sections", tensorSplit},
          {"aten::unfold.default", unfold},
          {"aten::kron.default", kron},
          {"aten::linalg_cross.default", cross},
          {"aten::cdist.default", cdist},
          {"aten::_cdist_forward.default", cdist},
          {"aten::tensordot.default", tensordot}};
}

} // namespace tico::decompose
