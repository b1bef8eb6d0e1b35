// canonicalize-equivalent-ops: spells equivalent operators one way, so that later passes
// (view composition, CSE) have fewer forms to match.
//
//   EXPAND_DIMS, SQUEEZE, PACK of one input (static shapes)        -> RESHAPE
//   STRIDED_SLICE keeping every element in order (stride 1)         -> RESHAPE
//   TRANSPOSE that only moves unit dimensions                       -> RESHAPE
//   PADV2 whose padding value is 0                                  -> PAD
//   SPLIT_V whose (resolved) sizes are all equal                    -> SPLIT
// Shapes must be static where the rewrite depends on them: a dynamic dim (-1 in the
// signature) is stored as 1 but is not a unit dimension.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

bool staticTensor(const SubgraphEditor &e, int32_t t) { return e.validTensor(t) && !isDynamic(e.tensor(t)); }

// Same elements in the same row-major order: only a reshape of a static input to a static output.
bool toReshape(SubgraphEditor &e, int i, int32_t data) {
  const int32_t out = e.op(i).outputs[0];
  if (!staticTensor(e, data) || !staticTensor(e, out))
    return false;
  const CircleTensor &x = e.tensor(data), &y = e.tensor(out);
  if (x.type != y.type || !sameQuantization(x, y) || elementCount(x.shape) != elementCount(y.shape))
    return false;
  std::vector<int32_t> shape = y.shape;
  int32_t shape_tensor =
      e.addInt32Constant(shape, {static_cast<int32_t>(shape.size())}, derivedName(e, out, "shape"));
  circle::ReshapeOptionsT options;
  if (!shape.empty()) // onert 0.2 crashes on a present but empty new_shape
    options.new_shape = shape;
  replaceOp(e, i, BuiltinOperator::RESHAPE, {data, shape_tensor}, makeOptions(std::move(options)));
  return true;
}

bool stridedSliceIsView(const SubgraphEditor &e, int i) {
  const CircleOperator &op = e.op(i);
  const auto *o = op.builtin_options.AsStridedSliceOptions();
  if (!o || op.inputs.size() != 4 || o->ellipsis_mask || o->new_axis_mask || !staticTensor(e, op.inputs[0]))
    return false;
  auto begin = constantInts(e, op.inputs[1]);
  auto strides = constantInts(e, op.inputs[3]);
  const auto &shape = e.tensor(op.inputs[0]).shape;
  if (!begin || !strides || begin->size() != shape.size() || strides->size() != shape.size())
    return false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    int64_t b = ((o->begin_mask >> d) & 1) ? 0 : (*begin)[d];
    if (b < 0 && !o->offset)
      b += shape[d];
    if (b != 0 || (*strides)[d] != 1)
      return false;
  }
  // Starting at 0 with stride 1, the slice keeps everything exactly when the counts agree.
  return elementCount(e.tensor(op.outputs[0]).shape) == elementCount(shape);
}

bool transposeMovesOnlyUnitDims(const SubgraphEditor &e, int i) {
  auto perm = transposePermutation(e, i);
  int32_t in = e.op(i).inputs[0];
  if (!perm || !staticTensor(e, in))
    return false;
  const auto &shape = e.tensor(in).shape;
  int64_t last = -1;
  for (int64_t axis : *perm) {
    if (shape[axis] == 1)
      continue;
    if (axis < last)
      return false;
    last = axis;
  }
  return !isIdentityPermutation(*perm);
}

bool padV2ToPad(SubgraphEditor &e, int i) {
  const auto &in = e.op(i).inputs;
  if (in.size() != 3 || !e.validTensor(in[2]) || isQuantized(e.tensor(in[2])) ||
      !e.isConstantTensor(in[2]) || !constantIsSplat(e.model(), e.tensor(in[2]), 0.0))
    return false;
  if (e.validTensor(e.op(i).outputs[0]) && isQuantized(e.tensor(e.op(i).outputs[0])))
    return false; // a quantized zero is the zero point, which PAD may not use
  replaceOp(e, i, BuiltinOperator::PAD, {in[0], in[1]}, makeOptions(circle::PadOptionsT{}));
  return true;
}

bool splitVToSplit(SubgraphEditor &e, int i) {
  const CircleOperator &op = e.op(i);
  if (op.inputs.size() != 3 || op.outputs.empty() || !e.validTensor(op.inputs[0]))
    return false;
  auto sizes = constantInts(e, op.inputs[1]);
  auto axis = constantInts(e, op.inputs[2]);
  const CircleTensor &x = e.tensor(op.inputs[0]);
  if (!sizes || !axis || axis->size() != 1 || sizes->size() != op.outputs.size())
    return false;
  auto a = normalizeAxis((*axis)[0], static_cast<int64_t>(x.shape.size()));
  if (!a || (x.shape_signature.size() > static_cast<std::size_t>(*a) && x.shape_signature[*a] < 0))
    return false;
  const int64_t n = static_cast<int64_t>(sizes->size());
  if (x.shape[*a] % n != 0)
    return false;
  const int64_t each = x.shape[*a] / n;
  for (int64_t s : *sizes)
    if (s != each && s != -1)
      return false;
  int32_t axis_tensor = e.addInt32Constant({static_cast<int32_t>(*a)}, {}, derivedName(e, op.outputs[0], "axis"));
  circle::SplitOptionsT options;
  options.num_splits = static_cast<int32_t>(n);
  int32_t data = op.inputs[0];
  replaceOp(e, i, BuiltinOperator::SPLIT, {axis_tensor, data}, makeOptions(std::move(options)));
  return true;
}

bool canonicalize(SubgraphEditor &e, int i) {
  const CircleOperator &op = e.op(i);
  if (op.outputs.empty() || op.inputs.empty())
    return false;
  switch (e.code(i)) {
  case BuiltinOperator::EXPAND_DIMS:
  case BuiltinOperator::SQUEEZE:
    return op.outputs.size() == 1 && toReshape(e, i, op.inputs[0]);
  case BuiltinOperator::PACK:
    return op.inputs.size() == 1 && op.outputs.size() == 1 && toReshape(e, i, op.inputs[0]);
  case BuiltinOperator::STRIDED_SLICE:
    return op.outputs.size() == 1 && stridedSliceIsView(e, i) && toReshape(e, i, op.inputs[0]);
  case BuiltinOperator::TRANSPOSE:
    return op.outputs.size() == 1 && transposeMovesOnlyUnitDims(e, i) && toReshape(e, i, op.inputs[0]);
  case BuiltinOperator::PADV2:
    return padV2ToPad(e, i);
  case BuiltinOperator::SPLIT_V:
    return splitVToSplit(e, i);
  default:
    return false;
  }
}

class CanonicalizeEquivalentOps final : public CirclePass {
public:
  explicit CanonicalizeEquivalentOps(const Options &) {}
  bool run(CircleModel &model, PassContext &) override { return sweepToFixedPoint(model, canonicalize); }
};

} // namespace

void registerCanonicalizeEquivalentOps(Registrar &r) {
  registerCirclePass<CanonicalizeEquivalentOps>(
      r, "canonicalize-equivalent-ops",
      "rewrite equivalent forms canonically: static EXPAND_DIMS/SQUEEZE/one-input PACK/view STRIDED_SLICE/"
      "unit-dim TRANSPOSE -> RESHAPE, zero PADV2 -> PAD, equal SPLIT_V -> SPLIT");
}

} // namespace tico::circle_passes
