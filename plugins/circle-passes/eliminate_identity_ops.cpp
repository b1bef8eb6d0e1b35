// eliminate-identity-ops: removes operators whose output is exactly their data input.
//
// Matched (each only when the output has the input's complete contract — type, shape,
// signature and quantization — so broadcasting or requantization never hides behind it, and
// only without a fused activation):
//   ADD x+0 / 0+x, SUB x-0, MUL x*1 / 1*x, DIV x/1 (float and integer, constant splat operand);
//   CAST to the same type; SLICE and STRIDED_SLICE taking everything with stride 1;
//   SPLIT / SPLIT_V with one output; CONCATENATION of one input; PAD / PADV2 / MIRROR_PAD,
//   TILE, BROADCAST_TO, SQUEEZE, EXPAND_DIMS that leave the shape unchanged.
// Quantized arithmetic is left alone: requantization may be observable even when the real
// arithmetic is an identity. An identity whose output is a subgraph output is removed only
// when its producer can write that output directly (see redirect()).
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

// The data input that `op` passes through unchanged, or -1.
int32_t identityInput(const SubgraphEditor &e, int i) {
  const CircleOperator &op = e.op(i);
  if (op.outputs.size() != 1 || op.inputs.empty() || !hasNoFusedActivation(op))
    return -1;
  const int32_t out = op.outputs[0];
  if (!e.validTensor(out))
    return -1;
  auto passes = [&](int32_t in) { return e.validTensor(in) && sameContract(e.tensor(in), e.tensor(out)); };
  auto splat = [&](int32_t t, double v) {
    return e.isConstantTensor(t) && !isQuantized(e.tensor(t)) && constantIsSplat(e.model(), e.tensor(t), v);
  };
  const auto &in = op.inputs;
  switch (e.code(i)) {
  case BuiltinOperator::ADD:
  case BuiltinOperator::MUL: {
    if (in.size() != 2 || isQuantized(e.tensor(out)))
      return -1;
    double neutral = e.code(i) == BuiltinOperator::ADD ? 0.0 : 1.0;
    if (passes(in[0]) && splat(in[1], neutral))
      return in[0];
    if (passes(in[1]) && splat(in[0], neutral))
      return in[1];
    return -1;
  }
  case BuiltinOperator::SUB:
  case BuiltinOperator::DIV: {
    if (in.size() != 2 || isQuantized(e.tensor(out)))
      return -1;
    double neutral = e.code(i) == BuiltinOperator::SUB ? 0.0 : 1.0;
    return passes(in[0]) && splat(in[1], neutral) ? in[0] : -1;
  }
  case BuiltinOperator::CAST:
    return passes(in[0]) ? in[0] : -1;
  case BuiltinOperator::SLICE: {
    if (in.size() != 3 || !passes(in[0]))
      return -1;
    auto begin = constantInts(e, in[1]);
    auto size = constantInts(e, in[2]);
    const CircleTensor &x = e.tensor(in[0]);
    if (!begin || !size || size->size() != x.shape.size())
      return -1;
    for (int64_t b : *begin)
      if (b != 0)
        return -1;
    // A dynamic dim is taken whole only with size -1 (the output shape cannot tell).
    for (std::size_t d = 0; d < size->size(); ++d)
      if ((*size)[d] != -1 && (x.shape_signature.size() > d && x.shape_signature[d] < 0))
        return -1;
    return in[0];
  }
  case BuiltinOperator::STRIDED_SLICE: {
    const auto *o = op.builtin_options.AsStridedSliceOptions();
    if (in.size() < 3 || !passes(in[0]) || !o || o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask)
      return -1;
    auto begin = constantInts(e, in[1]);
    std::optional<std::vector<int64_t>> strides;
    if (in.size() > 3)
      strides = constantInts(e, in[3]);
    if (!begin || (in.size() > 3 && !strides))
      return -1;
    const auto &shape = e.tensor(in[0]).shape;
    const auto &signature = e.tensor(in[0]).shape_signature;
    for (std::size_t d = 0; d < begin->size() && d < shape.size(); ++d) {
      bool masked = (o->begin_mask >> d) & 1;
      if (signature.size() > d && signature[d] < 0 && !((o->end_mask >> d) & 1))
        return -1; // a dynamic dim is taken whole only through end_mask
      const bool dynamic = signature.size() > d && signature[d] < 0;
      int64_t b = (*begin)[d] < 0 && !dynamic ? (*begin)[d] + shape[d] : (*begin)[d];
      if (!masked && !o->offset && b != 0)
        return -1;
      if (o->offset && (*begin)[d] != 0)
        return -1;
      if (strides && d < strides->size() && (*strides)[d] != 1)
        return -1;
    }
    return in[0];
  }
  case BuiltinOperator::SPLIT: // inputs: axis, data
    return in.size() == 2 && passes(in[1]) ? in[1] : -1;
  case BuiltinOperator::SPLIT_V: // inputs: data, size_splits, axis
  case BuiltinOperator::CONCATENATION:
  case BuiltinOperator::PAD:
  case BuiltinOperator::PADV2:
  case BuiltinOperator::MIRROR_PAD:
  case BuiltinOperator::TILE:
  case BuiltinOperator::BROADCAST_TO:
  case BuiltinOperator::SQUEEZE:
  case BuiltinOperator::EXPAND_DIMS:
    if (e.code(i) == BuiltinOperator::CONCATENATION && in.size() != 1)
      return -1;
    // Padding or tiling a dynamic dim leaves it dynamic: the shapes cannot prove a no-op.
    if (e.validTensor(in[0]) && isDynamic(e.tensor(in[0])) &&
        (e.code(i) == BuiltinOperator::PAD || e.code(i) == BuiltinOperator::PADV2 ||
         e.code(i) == BuiltinOperator::MIRROR_PAD || e.code(i) == BuiltinOperator::TILE ||
         e.code(i) == BuiltinOperator::BROADCAST_TO))
      return -1;
    return passes(in[0]) ? in[0] : -1;
  default:
    return -1;
  }
}

class EliminateIdentityOps final : public CirclePass {
public:
  explicit EliminateIdentityOps(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [](SubgraphEditor &e, int i) {
      int32_t input = identityInput(e, i);
      return input >= 0 && bypassOp(e, i, input);
    });
  }
};

} // namespace

void registerEliminateIdentityOps(Registrar &r) {
  registerCirclePass<EliminateIdentityOps>(
      r, "eliminate-identity-ops",
      "remove operators that return their input unchanged (x+0, x*1, same-type CAST, full SLICE, one-way SPLIT, ...)");
}

} // namespace tico::circle_passes
