// fold-constant-views: a view op (permute, transpose, t, unsqueeze, squeeze, slice, select,
// view/reshape) applied to a constant becomes a new constant whose TensorData is the same
// Storage seen through other sizes/strides/offset — nothing is copied, and two folds that
// arrive at the same view are recognised as one tensor by the serializer. A reshape that no
// strides can express, symbolic arguments, and expand (whose materialised copy could be far
// larger than its input) are left alone.
#include "constant_views.h"
#include "pass_support.h"
#include "passes.h"

#include "tico/ir/shape_utils.h"

#include <algorithm>

namespace tico::passes {
namespace {

// The folded view of `node`'s constant input, or null when the node is not a foldable view.
DataPtr foldedView(const Node &node) {
  const Value *in = node.input(0);
  const TensorData &data = *in->constant();
  const Value *out = node.output();
  int64_t rank = in->rank();
  if (!isStatic(out->shape()))
    return nullptr;
  if (isOp(node, {"aten::permute.default", "aten::permute_copy.default"})) {
    std::vector<int64_t> perm;
    for (int64_t d : node.arg(1).asInts())
      perm.push_back(normalizeDim(d, rank));
    return permuteView(data, perm);
  }
  if (isOp(node, {"aten::transpose.int", "aten::transpose_copy.int", "aten::t.default", "aten::t_copy.default"})) {
    std::vector<int64_t> perm(static_cast<std::size_t>(rank));
    for (int64_t i = 0; i < rank; ++i)
      perm[static_cast<std::size_t>(i)] = i;
    if (rank >= 2) {
      bool t = node.op().name == "t" || node.op().name == "t_copy";
      int64_t a = t ? 0 : normalizeDim(node.arg(1).asInt(), rank);
      int64_t b = t ? 1 : normalizeDim(node.arg(2).asInt(), rank);
      std::swap(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]);
    }
    return permuteView(data, perm);
  }
  if (isOp(node, {"aten::unsqueeze.default", "aten::unsqueeze_copy.default"}))
    return unsqueezeView(data, normalizeDim(node.arg(1).asInt(), rank + 1));
  if (isOp(node, {"aten::squeeze.default", "aten::squeeze.dim", "aten::squeeze.dims", "aten::squeeze_copy.default",
                  "aten::squeeze_copy.dim", "aten::squeeze_copy.dims"})) {
    std::vector<int64_t> requested;
    if (node.numArgs() < 2)
      for (int64_t i = 0; i < rank; ++i)
        requested.push_back(i);
    else if (node.arg(1).isInt())
      requested.push_back(node.arg(1).asInt());
    else
      requested = node.arg(1).asInts();
    std::vector<int64_t> dims;
    for (int64_t d : requested) {
      if (rank == 0)
        continue;
      int64_t n = normalizeDim(d, rank);
      if (data.sizes[static_cast<std::size_t>(n)] == 1 && std::find(dims.begin(), dims.end(), n) == dims.end())
        dims.push_back(n);
    }
    return squeezeView(data, dims);
  }
  if (isOp(node, {"aten::slice.Tensor", "aten::slice_copy.Tensor"})) {
    auto start = node.arg("start").isNone() ? std::optional<int64_t>(0) : staticInt(node.arg("start"));
    auto end = node.arg("end").isNone() ? std::optional<int64_t>(INT64_MAX) : staticInt(node.arg("end"));
    auto step = staticInt(node.arg("step"));
    if (!start || !end || !step || *step <= 0 || rank == 0)
      return nullptr;
    int64_t dim = normalizeDim(node.arg("dim").asInt(), rank);
    int64_t n = data.sizes[static_cast<std::size_t>(dim)];
    auto clamp = [n](int64_t v) {
      if (v < 0)
        v += n;
      return std::clamp<int64_t>(v, 0, n);
    };
    int64_t s = clamp(*start);
    int64_t e = std::max(clamp(*end), s);
    return sliceView(data, dim, s, e, *step);
  }
  if (isOp(node, {"aten::select.int", "aten::select_copy.int"})) {
    auto index = staticInt(node.arg(2));
    if (!index || rank == 0)
      return nullptr;
    int64_t dim = normalizeDim(node.arg(1).asInt(), rank);
    int64_t n = data.sizes[static_cast<std::size_t>(dim)];
    int64_t i = *index < 0 ? *index + n : *index;
    if (i < 0 || i >= n)
      return nullptr;
    return selectView(data, dim, i);
  }
  if (isOp(node, {"aten::view.default", "aten::_unsafe_view.default", "aten::reshape.default",
                  "aten::view_copy.default"}))
    return reshapeView(data, hintSizes(out->shape()));
  return nullptr;
}

// The view ops foldedView knows: the roots of the pattern.
const std::string_view kViewOps[] = {
    "aten::permute.default",     "aten::permute_copy.default",  "aten::transpose.int",
    "aten::transpose_copy.int",  "aten::t.default",             "aten::t_copy.default",
    "aten::unsqueeze.default",   "aten::unsqueeze_copy.default", "aten::squeeze.default",
    "aten::squeeze.dim",         "aten::squeeze.dims",          "aten::squeeze_copy.default",
    "aten::squeeze_copy.dim",    "aten::squeeze_copy.dims",     "aten::slice.Tensor",
    "aten::slice_copy.Tensor",   "aten::select.int",            "aten::select_copy.int",
    "aten::view.default",        "aten::_unsafe_view.default",  "aten::reshape.default",
    "aten::view_copy.default"};

bool foldConstantView(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  if (node->numOutputs() != 1 || node->numArgs() == 0 || !node->arg(0).isValue())
    return false;
  const Value *in = node->input(0);
  if (!in->isConstant() || !node->output()->isTensor())
    return false;
  DataPtr view = foldedView(*node);
  if (!view)
    return false;
  if (view->sizes != hintSizes(node->output()->shape()) || view->dtype != node->output()->dtype())
    throw Error("fold-constant-views: the folded view of '" + node->name() + "' does not match the node's result type");
  Value *folded = rewriter.graph().addConstant(node->output()->name(), view);
  rewriter.replaceNode(node, folded);
  return true;
}

} // namespace

void registerFoldConstantViews(Registrar &r) {
  r.addPass(sweepPass("fold-constant-views",
                      "Turn view ops of constants into zero-copy constant views (same storage, new strides)", kViewOps,
                      foldConstantView));
}

} // namespace tico::passes
