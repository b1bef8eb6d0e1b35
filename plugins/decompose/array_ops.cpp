// NumPy-style array manipulation ops that plain torch.export keeps whole (CompositeImplicit in
// PyTorch), written as the view, slice, pad and cat ops the lowerings take:
//
//   resolve_conj, resolve_neg, real, conj, conj_physical of a real tensor = the tensor
//   ravel(x) = reshape(x, [-1])              fliplr / flipud(x) = flip(x, [1]) / flip(x, [0])
//   rot90(x, k, dims) = flips and a transpose, as PyTorch composes them (k mod 4)
//   column_stack(xs) = cat along 1 of the 0-d / 1-d inputs made columns
//   hsplit / vsplit / dsplit(x, n or indices), tensor_split(x, indices, dim) = slices
//   meshgrid(xs, indexing) = each input reshaped to its axis and expanded ("xy" swaps 0 and 1)
//   cartesian_prod(xs) = stack of the flattened meshgrid ("ij")
//   broadcast_tensors(xs) = expand of each to the common shape
//   sum_to_size(x, size) = sum over the leading dims and the dims size has as 1, reshaped
//   diag(v, k), diag_embed(x, k, d1, d2), diagflat(x, k) = where(eye, x, 0) padded by |k|,
//     the two new dims moved to d1, d2 (where, not a product with eye: 0 * inf is NaN)
//   block_diag(xs) = each block padded with zero columns, cat along 0
//   inner(a, b) = a [M, k] times b [N, k] transposed, reshaped to a's and b's leading dims
//   logaddexp2(x, y) = max + log1p(2^-|x - y|) / ln 2 (x + 1 where x == y, infinities too)
//   copysign(x, s) with a number s = |x| or -|x|, by the sign bit of s (-0.0 counts as negative)
//   rms_norm over several trailing dims = x rsqrt(mean(x^2) + eps) w (the lowering's RMS_NORM
//     takes one dim); eps None is float32's epsilon, as PyTorch
//
// Rules leave a node alone (nullopt) where a needed size is symbolic.
#include "layout_rules.h"
#include "math_unary.h"

#include "tico/ir/shape_utils.h"
#include "tico/ir/tensor_data.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tico::decompose {

using passes::A;
using rewrite::Ints;
using namespace unary;

namespace {

Value *aliasOf(Builder &b, Value *x) { return b.make("aten::alias.default", {A(x)}); }

std::optional<std::vector<int64_t>> sizesOf(const Value *x) {
  if (!x->isTensor() || !isStatic(x->shape()))
    return std::nullopt;
  return hintSizes(x->shape());
}

bool isComplex(DType dtype) { return dtype == DType::Complex64 || dtype == DType::Complex128; }

Replacement identityForReal(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!x->isTensor() || isComplex(x->dtype()))
    return std::nullopt;
  return one(aliasOf(b, x));
}

Replacement ravel(Builder &b, Node &n) {
  return one(b.make("aten::reshape.default", {A(n.input("self")), Ints({-1})}));
}

// flip keeps its input's type (and has no type rule of its own).
Value *flip(Builder &b, Value *x, std::vector<int64_t> dims) {
  return b.typed("aten::flip.default", {rewrite::kw("self", A(x)), rewrite::kw("dims", Ints(std::move(dims)))},
                 x->dtype(), x->shape());
}

Rewrite flipDim(int64_t dim) {
  return [dim](Builder &b, Node &n) -> Replacement { return one(flip(b, n.input("self"), {dim})); };
}

Value *transpose(Builder &b, Value *x, int64_t d0, int64_t d1) {
  return b.make("aten::transpose.int", {A(x), A(d0), A(d1)});
}

Replacement rot90(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<std::vector<int64_t>> dims = staticInts(n.arg("dims"));
  const std::optional<int64_t> turns = passes::staticInt(n.arg("k"));
  if (!dims || dims->size() != 2 || !turns || x->rank() < 2)
    return std::nullopt;
  const int64_t d0 = normalizeDim((*dims)[0], x->rank()), d1 = normalizeDim((*dims)[1], x->rank());
  if (d0 == d1)
    return std::nullopt;
  switch (((*turns % 4) + 4) % 4) {
  case 1:
    return one(transpose(b, flip(b, x, {d1}), d0, d1));
  case 2:
    return one(flip(b, x, {d0, d1}));
  case 3:
    return one(transpose(b, flip(b, x, {d0}), d0, d1));
  default:
    return one(aliasOf(b, x));
  }
}

// x reshaped to `sizes`, as a new node.
Value *reshaped(Builder &b, Value *x, const std::vector<int64_t> &sizes) {
  return b.make("aten::reshape.default", {A(x), Ints(sizes)});
}

Replacement columnStack(Builder &b, Node &n) {
  std::vector<Value *> columns;
  for (Value *x : n.arg("tensors").asValues()) {
    if (x->rank() > 1) {
      columns.push_back(x);
      continue;
    }
    const auto sizes = sizesOf(x);
    if (!sizes)
      return std::nullopt;
    columns.push_back(reshaped(b, x, {sizes->empty() ? 1 : (*sizes)[0], 1}));
  }
  if (columns.empty())
    return std::nullopt;
  return one(b.make("aten::cat.default", {Argument::values(columns), A(int64_t{1})}));
}

// The slices of x along dim between the boundaries 0, cuts..., size (cuts clamped, a cut
// below the previous one giving an empty piece, as tensor_split); nullopt for an empty piece
// (a Circle tensor cannot be empty) or a symbolic size.
Replacement slicesAt(Builder &b, Value *x, int64_t dim, const std::vector<int64_t> &cuts, std::size_t outputs) {
  if (x->rank() == 0 || cuts.size() + 1 != outputs)
    return std::nullopt;
  dim = normalizeDim(dim, x->rank());
  const Dim &extent = x->shape()[static_cast<std::size_t>(dim)];
  if (!extent.isStatic())
    return std::nullopt;
  const int64_t size = extent.value();
  std::vector<Value *> pieces;
  int64_t begin = 0;
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    const int64_t cut = i < cuts.size() ? std::clamp(cuts[i] < 0 ? cuts[i] + size : cuts[i], int64_t{0}, size) : size;
    const int64_t end = std::max(begin, cut);
    if (end == begin)
      return std::nullopt;
    pieces.push_back(b.make("aten::slice.Tensor", {A(x), A(dim), A(begin), A(end), A(int64_t{1})}));
    begin = end;
  }
  return pieces;
}

// hsplit / vsplit / dsplit: `dim` (hsplit: 0 for a vector); .int splits into equal parts.
Rewrite namedSplit(int64_t dim, bool by_count) {
  return [dim, by_count](Builder &b, Node &n) -> Replacement {
    Value *x = n.input("self");
    const int64_t axis = dim == 1 && x->rank() == 1 ? 0 : dim;
    if (x->rank() <= axis)
      return std::nullopt;
    std::vector<int64_t> cuts;
    if (by_count) {
      const std::optional<int64_t> sections = passes::staticInt(n.arg("sections"));
      const Dim &extent = x->shape()[static_cast<std::size_t>(axis)];
      if (!sections || *sections < 1 || !extent.isStatic() || extent.value() % *sections != 0)
        return std::nullopt;
      for (int64_t i = 1; i < *sections; ++i)
        cuts.push_back(i * (extent.value() / *sections));
    } else {
      const auto indices = staticInts(n.arg("indices"));
      if (!indices)
        return std::nullopt;
      cuts = *indices;
    }
    return slicesAt(b, x, axis, cuts, n.numOutputs());
  };
}

Replacement tensorSplitIndices(Builder &b, Node &n) {
  const auto indices = staticInts(n.arg("indices"));
  if (!indices)
    return std::nullopt;
  return slicesAt(b, n.input("self"), n.arg("dim").isInt() ? n.arg("dim").asInt() : 0, *indices, n.numOutputs());
}

// Each 0-d / 1-d input reshaped to its own axis of the grid and expanded to the grid's shape.
std::optional<std::vector<Value *>> gridOf(Builder &b, const std::vector<Value *> &inputs, bool xy) {
  std::vector<int64_t> grid;
  for (Value *x : inputs) {
    const auto sizes = sizesOf(x);
    if (!sizes || sizes->size() > 1)
      return std::nullopt;
    grid.push_back(sizes->empty() ? 1 : (*sizes)[0]);
  }
  std::vector<std::size_t> axis(inputs.size());
  std::iota(axis.begin(), axis.end(), std::size_t{0});
  if (xy && inputs.size() >= 2) {
    std::swap(axis[0], axis[1]);
    std::swap(grid[0], grid[1]);
  }
  std::vector<Value *> out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<int64_t> along(inputs.size(), 1);
    along[axis[i]] = grid[axis[i]];
    Value *line = reshaped(b, inputs[i], along);
    out.push_back(b.make("aten::expand.default", {A(line), Ints(grid)}));
  }
  return out;
}

Replacement meshgrid(Builder &b, Node &n) {
  const Argument *indexing = n.findArg("indexing");
  const bool xy = indexing != nullptr && indexing->kind() == Argument::Kind::String && indexing->asString() == "xy";
  const auto &inputs = n.arg("tensors").asValues();
  if (inputs.empty() || inputs.size() != n.numOutputs())
    return std::nullopt;
  return gridOf(b, inputs, xy);
}

Replacement cartesianProd(Builder &b, Node &n) {
  const auto &inputs = n.arg("tensors").asValues();
  if (inputs.size() == 1)
    return one(aliasOf(b, inputs[0]));
  const auto grid = gridOf(b, inputs, false);
  if (!grid || inputs.empty())
    return std::nullopt;
  std::vector<Value *> columns;
  for (Value *g : *grid)
    columns.push_back(b.make("aten::reshape.default", {A(g), Ints({-1, 1})}));
  return one(b.make("aten::cat.default", {Argument::values(columns), A(int64_t{1})}));
}

Replacement broadcastTensors(Builder &b, Node &n) {
  const auto &inputs = n.arg("tensors").asValues();
  if (inputs.empty() || inputs.size() != n.numOutputs())
    return std::nullopt;
  Shape target = inputs[0]->shape();
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const auto common = broadcastShapes(target, inputs[i]->shape());
    if (!common)
      return std::nullopt;
    target = *common;
  }
  std::vector<Value *> out;
  for (Value *x : inputs) {
    Value *e = b.expand(x, target, inputs);
    if (e == nullptr)
      return std::nullopt;
    out.push_back(e);
  }
  return out;
}

Replacement sumToSize(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto sizes = sizesOf(x);
  const auto target = staticInts(n.arg("size"));
  if (!sizes || !target || target->size() > sizes->size())
    return std::nullopt;
  const std::size_t lead = sizes->size() - target->size();
  std::vector<int64_t> dims;
  for (std::size_t d = 0; d < sizes->size(); ++d)
    if (d < lead || ((*target)[d - lead] == 1 && (*sizes)[d] != 1))
      dims.push_back(static_cast<int64_t>(d));
  if (dims.empty())
    return one(aliasOf(b, x));
  Value *sum = b.make("aten::sum.dim_IntList", {A(x), Ints(dims), A(true)});
  return one(reshaped(b, sum, *target));
}

// A constant [n, n] bool identity.
Value *eyeMask(Builder &b, int64_t n) {
  std::vector<uint8_t> values(static_cast<std::size_t>(n * n), 0);
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<std::size_t>(i * n + i)] = 1;
  return b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Bool, {n, n}, values)), "eye");
}

// x [..., n] -> [..., n + |k|, n + |k|] with x on the k-th diagonal of the last two dims.
Value *embedDiagonal(Builder &b, Value *x, int64_t offset) {
  const auto sizes = sizesOf(x);
  if (!sizes || sizes->empty() || sizes->back() < 1)
    return nullptr;
  const int64_t n = sizes->back();
  Value *column = b.make("aten::unsqueeze.default", {A(x), A(int64_t{-1})});
  Value *mask = eyeMask(b, n);
  Value *square = x->dtype() == DType::Bool ? b.make("aten::logical_and.default", {A(column), A(mask)})
                                            : where(b, mask, A(column), x->dtype() == DType::Float32 ? A(0.0) : A(int64_t{0}));
  if (square->dtype() != x->dtype())
    square = b.cast(square, x->dtype());
  if (offset == 0)
    return square;
  const int64_t k = std::abs(offset);
  const std::vector<int64_t> pad = offset > 0 ? std::vector<int64_t>{k, 0, 0, k} : std::vector<int64_t>{0, k, k, 0};
  return b.make("aten::constant_pad_nd.default", {A(square), Ints(pad)});
}

int64_t intArg(const Node &n, std::string_view name, int64_t fallback) {
  const Argument *arg = n.findArg(name);
  return arg != nullptr && arg->isInt() ? arg->asInt() : fallback;
}

Replacement diagOfVector(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() != 1)
    return std::nullopt; // diag of a matrix reads a diagonal: convenience.cpp
  return one(embedDiagonal(b, x, intArg(n, "diagonal", 0)));
}

Replacement diagflat(Builder &b, Node &n) {
  Value *flat = b.make("aten::reshape.default", {A(n.input("self")), Ints({-1})});
  return one(embedDiagonal(b, flat, intArg(n, "offset", 0)));
}

Replacement diagEmbed(Builder &b, Node &n) {
  Value *x = n.input("self");
  const int64_t rank = x->rank() + 1;
  if (x->rank() == 0)
    return std::nullopt;
  const int64_t d1 = normalizeDim(intArg(n, "dim1", -2), rank), d2 = normalizeDim(intArg(n, "dim2", -1), rank);
  if (d1 == d2)
    return std::nullopt;
  Value *square = embedDiagonal(b, x, intArg(n, "offset", 0));
  if (square == nullptr)
    return std::nullopt;
  // The rows (rank - 2) go to d1 and the columns (rank - 1) to d2; the batch dims keep their order.
  std::vector<int64_t> perm(static_cast<std::size_t>(rank));
  int64_t batch = 0;
  for (int64_t p = 0; p < rank; ++p)
    perm[static_cast<std::size_t>(p)] = p == d1 ? rank - 2 : p == d2 ? rank - 1 : batch++;
  bool identity = true;
  for (int64_t p = 0; p < rank; ++p)
    identity = identity && perm[static_cast<std::size_t>(p)] == p;
  return one(identity ? square : b.permute(square, perm));
}

Replacement blockDiag(Builder &b, Node &n) {
  const std::vector<Value *> &inputs = n.arg("tensors").asValues();
  if (inputs.empty())
    return std::nullopt;
  // Every check before the first node is built.
  std::vector<std::pair<int64_t, int64_t>> shapes;
  int64_t columns = 0;
  for (Value *x : inputs) {
    const auto sizes = sizesOf(x);
    if (!sizes || sizes->size() > 2 || x->dtype() != inputs[0]->dtype())
      return std::nullopt; // mixed dtypes promote: left to run_decompositions()
    const int64_t rows = sizes->size() == 2 ? (*sizes)[0] : 1;
    const int64_t cols = sizes->empty() ? 1 : sizes->back();
    if (rows == 0 || cols == 0)
      return std::nullopt;
    shapes.emplace_back(rows, cols);
    columns += cols;
  }
  std::vector<Value *> blocks;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    blocks.push_back(inputs[i]->rank() == 2 ? inputs[i] : reshaped(b, inputs[i], {shapes[i].first, shapes[i].second}));
  std::vector<Value *> rows;
  int64_t left = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const int64_t right = columns - left - shapes[i].second;
    rows.push_back(left == 0 && right == 0
                       ? blocks[i]
                       : b.make("aten::constant_pad_nd.default", {A(blocks[i]), Ints({left, right})}));
    left += shapes[i].second;
  }
  return one(rows.size() == 1 ? aliasOf(b, rows[0]) : b.make("aten::cat.default", {Argument::values(rows), A(int64_t{0})}));
}

Replacement inner(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (x->rank() == 0 || y->rank() == 0)
    return one(b.mul(A(x), A(y)));
  const auto xs = sizesOf(x), ys = sizesOf(y);
  if (!xs || !ys || xs->back() != ys->back() || !isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  const int64_t k = xs->back();
  const int64_t m = checkedProduct(std::vector<int64_t>(xs->begin(), xs->end() - 1));
  const int64_t r = checkedProduct(std::vector<int64_t>(ys->begin(), ys->end() - 1));
  Value *lhs = reshaped(b, x, {m, k});
  Value *rhs = b.permute(reshaped(b, y, {r, k}), {1, 0});
  std::vector<int64_t> out(xs->begin(), xs->end() - 1);
  out.insert(out.end(), ys->begin(), ys->end() - 1);
  return one(reshaped(b, b.make("aten::mm.default", {A(lhs), A(rhs)}), out));
}

Replacement logaddexp2(Builder &b, Node &n) {
  Value *x = n.input("self"), *y = n.input("other");
  if (!isFloat32(x) || !isFloat32(y))
    return std::nullopt;
  const double ln2 = std::log(2.0);
  Value *high = b.make("aten::maximum.default", {A(x), A(y)});
  Value *gap = b.mul(A(neg(b, abs(b, b.sub(A(x), A(y))))), A(ln2)); // -|x - y| ln 2: 2^-|x-y| = e^gap
  Value *sum = b.add(A(high), A(b.mul(A(log1p(b, exp(b, gap))), A(1.0 / ln2))));
  // Equal infinities: the gap is NaN, the sum is that infinity (x + 1 is too).
  Value *equal = b.make("aten::eq.Tensor", {A(x), A(y)});
  return one(where(b, equal, A(b.add(A(x), A(1.0))), A(sum)));
}

Replacement copysignScalar(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<double> sign = passes::numberOf(n.arg("other"));
  if (!isFloat32(x) || !sign)
    return std::nullopt;
  Value *magnitude = abs(b, x);
  return one(std::signbit(*sign) ? neg(b, magnitude) : magnitude);
}

Replacement rmsNormOfDims(Builder &b, Node &n) {
  Value *x = n.input("input");
  const auto normalized = staticInts(n.arg("normalized_shape"));
  if (!isFloat32(x) || !normalized || normalized->size() < 2 || static_cast<int64_t>(normalized->size()) > x->rank())
    return std::nullopt; // one dim: the lowering's RMS_NORM
  std::vector<int64_t> dims;
  for (std::size_t i = 0; i < normalized->size(); ++i)
    dims.push_back(-static_cast<int64_t>(i) - 1);
  std::reverse(dims.begin(), dims.end());
  const double eps = numberArg(n, "eps", std::numeric_limits<float>::epsilon());
  Value *mean = b.make("aten::mean.dim", {A(b.mul(A(x), A(x))), Ints(dims), A(true)});
  Value *scale = b.make("aten::rsqrt.default", {A(b.add(A(mean), A(eps)))});
  Value *y = b.mul(A(x), A(scale));
  if (Value *weight = optionalValue(n, "weight"))
    y = b.mul(A(y), A(weight));
  return one(y);
}

} // namespace

std::vector<Rule> arrayOpRules() {
  return {{"aten::resolve_conj.default", identityForReal},
          {"aten::resolve_neg.default", identityForReal},
          {"aten::real.default", identityForReal},
          {"aten::conj.default", identityForReal},
          {"aten::conj_physical.default", identityForReal},
          {"aten::ravel.default", ravel},
          {"aten::fliplr.default", flipDim(1)},
          {"aten::flipud.default", flipDim(0)},
          {"aten::rot90.default", rot90},
          {"aten::column_stack.default", columnStack},
          {"aten::hsplit.int", namedSplit(1, true)},
          {"aten::hsplit.array", namedSplit(1, false)},
          {"aten::vsplit.int", namedSplit(0, true)},
          {"aten::vsplit.array", namedSplit(0, false)},
          {"aten::dsplit.int", namedSplit(2, true)},
          {"aten::dsplit.array", namedSplit(2, false)},
          {"aten::tensor_split.indices", tensorSplitIndices},
          {"aten::meshgrid.default", meshgrid},
          {"aten::meshgrid.indexing", meshgrid},
          {"aten::cartesian_prod.default", cartesianProd},
          {"aten::broadcast_tensors.default", broadcastTensors},
          {"aten::sum_to_size.default", sumToSize},
          {"aten::diag.default", diagOfVector},
          {"aten::diagflat.default", diagflat},
          {"aten::diag_embed.default", diagEmbed},
          {"aten::block_diag.default", blockDiag},
          {"aten::inner.default", inner},
          {"aten::logaddexp2.default", logaddexp2},
          {"aten::copysign.Scalar", copysignScalar},
          {"aten::rms_norm.default", rmsNormOfDims}};
}

} // namespace tico::decompose
