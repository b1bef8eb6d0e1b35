// simplify-reduction-ops: merges reduction chains and reductions behind a TRANSPOSE.
//
//   R(R(x, a1), a2)  (same reduction, same keep_dims)  -> R(x, a1 ∪ a2)
//   R(TRANSPOSE(x, P), a)   when the dims that survive the reduction keep their relative
//                           order through P           -> R(x, P[a]) (+ RESHAPE when keep_dims)
//   R(x, a) where every dim in a has size 1             -> RESHAPE(x) (one element per output)
// for R in MEAN (float32 only: a mean of integer means truncates twice), SUM, REDUCE_MAX,
// REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL. Global average pooling written as
// x.mean((2, 3)) after an NHWC convolution is the typical TRANSPOSE case: the converter's
// TRANSPOSE back to NCHW becomes unnecessary. The inner operator must have no other reader.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include <set>

namespace tico::circle_passes {
namespace {

bool isReduction(BuiltinOperator code) {
  switch (code) {
  case BuiltinOperator::MEAN:
  case BuiltinOperator::SUM:
  case BuiltinOperator::REDUCE_MAX:
  case BuiltinOperator::REDUCE_MIN:
  case BuiltinOperator::REDUCE_PROD:
  case BuiltinOperator::REDUCE_ANY:
  case BuiltinOperator::REDUCE_ALL:
    return true;
  default:
    return false;
  }
}

struct Reduction {
  int32_t data;
  std::set<int64_t> axes; // normalised, in the data's rank
  bool keep_dims;
};

std::optional<Reduction> reductionOf(const SubgraphEditor &e, int op) {
  const CircleOperator &o = e.op(op);
  const auto *options = o.builtin_options.AsReducerOptions();
  if (!isReduction(e.code(op)) || o.inputs.size() != 2 || o.outputs.size() != 1 || !options ||
      !e.validTensor(o.inputs[0]) || !e.validTensor(o.outputs[0]))
    return std::nullopt;
  const CircleTensor &x = e.tensor(o.inputs[0]);
  if (isQuantized(x) || (e.code(op) == BuiltinOperator::MEAN && x.type != circle::TensorType::FLOAT32))
    return std::nullopt;
  auto axes = constantInts(e, o.inputs[1]);
  if (!axes)
    return std::nullopt;
  Reduction r{o.inputs[0], {}, options->keep_dims};
  for (int64_t a : *axes) {
    auto n = normalizeAxis(a, static_cast<int64_t>(x.shape.size()));
    if (!n)
      return std::nullopt;
    r.axes.insert(*n);
  }
  return r;
}

void replaceReduction(SubgraphEditor &e, int op, int32_t data, const std::set<int64_t> &axes, bool keep_dims,
                      int32_t output) {
  std::vector<int32_t> values(axes.begin(), axes.end());
  int32_t axes_tensor = e.addInt32Constant(values, {static_cast<int32_t>(values.size())}, derivedName(e, output, "axes"));
  circle::ReducerOptionsT options;
  options.keep_dims = keep_dims;
  const BuiltinOperator code = e.code(op);
  std::vector<int32_t> outputs = e.op(op).outputs;
  outputs[0] = output;
  e.removeOp(op);
  e.addOp(code, {data, axes_tensor}, outputs, makeOptions(std::move(options)), op);
}

bool mergeChain(SubgraphEditor &e, int outer) {
  auto o = reductionOf(e, outer);
  if (!o)
    return false;
  const int inner = e.producer(o->data);
  if (inner < 0 || e.code(inner) != e.code(outer) || !e.onlyUseIs(o->data, outer))
    return false;
  auto in = reductionOf(e, inner);
  if (!in || in->keep_dims != o->keep_dims)
    return false;
  std::set<int64_t> merged = in->axes;
  if (o->keep_dims) {
    merged.insert(o->axes.begin(), o->axes.end());
  } else {
    // Outer axes index the dims the inner reduction left.
    std::vector<int64_t> remaining;
    for (int64_t d = 0; d < static_cast<int64_t>(e.tensor(in->data).shape.size()); ++d)
      if (!in->axes.count(d))
        remaining.push_back(d);
    for (int64_t a : o->axes) {
      if (a >= static_cast<int64_t>(remaining.size()))
        return false;
      merged.insert(remaining[a]);
    }
  }
  replaceReduction(e, outer, in->data, merged, o->keep_dims, e.op(outer).outputs[0]);
  return true;
}

bool throughTranspose(SubgraphEditor &e, int op) {
  auto r = reductionOf(e, op);
  if (!r)
    return false;
  const int t = e.producer(r->data);
  if (t < 0 || !e.onlyUseIs(r->data, op))
    return false;
  auto perm = transposePermutation(e, t);
  if (!perm)
    return false;
  const int32_t x = e.op(t).inputs[0];
  int64_t last = -1;
  std::set<int64_t> axes;
  for (int64_t i = 0; i < static_cast<int64_t>(perm->size()); ++i) {
    if (r->axes.count(i)) {
      axes.insert((*perm)[i]);
      continue;
    }
    if ((*perm)[i] < last)
      return false;
    last = (*perm)[i];
  }
  const int32_t out = e.op(op).outputs[0];
  if (!r->keep_dims) {
    replaceReduction(e, op, x, axes, false, out);
    return true;
  }
  const CircleTensor &y = e.tensor(out);
  if (isDynamic(y))
    return false;
  std::vector<int32_t> shape = e.tensor(x).shape;
  for (int64_t a : axes)
    shape[a] = 1;
  int32_t reduced = e.addTensorLike(out, shape, derivedName(e, out, "reduced"));
  std::vector<int32_t> target = e.tensor(out).shape;
  replaceReduction(e, op, x, axes, true, reduced);
  addReshape(e, reduced, out, target, op);
  return true;
}

// A reduction over dims of size 1 reads one element per output element: a RESHAPE (onert 0.2
// refuses such a MEAN at session preparation, "ShapeValidator failed": multi-head attention's
// head-averaged weights with one head).
bool overUnitDims(SubgraphEditor &e, int op) {
  auto r = reductionOf(e, op);
  if (!r || r->axes.empty())
    return false;
  const CircleTensor &x = e.tensor(r->data);
  const int32_t out = e.op(op).outputs[0];
  if (isDynamic(x) || isDynamic(e.tensor(out)) || e.tensor(out).type != x.type || isQuantized(e.tensor(out)))
    return false;
  for (int64_t a : r->axes)
    if (x.shape[static_cast<std::size_t>(a)] != 1)
      return false;
  const std::vector<int32_t> target = e.tensor(out).shape;
  e.removeOp(op);
  addReshape(e, r->data, out, target, op);
  return true;
}

class SimplifyReductionOps final : public CirclePass {
public:
  explicit SimplifyReductionOps(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [](SubgraphEditor &e, int i) {
      return isReduction(e.code(i)) && (overUnitDims(e, i) || mergeChain(e, i) || throughTranspose(e, i));
    });
  }
};

} // namespace

void registerSimplifyReductionOps(Registrar &r) {
  registerCirclePass<SimplifyReductionOps>(
      r, "simplify-reduction-ops",
      "merge consecutive reductions of the same kind; reduce before a TRANSPOSE whose surviving dims keep their order; "
      "a reduction over dims of size 1 becomes a RESHAPE");
}

} // namespace tico::circle_passes
