// fuse-composite-ops: recognises small decompositions and replaces them with one builtin.
//
//   RELU / RELU6 / RELU_N1_TO_1 after a capable producer  -> the producer's fused activation
//                                                           (see fuse_activation.cpp)
//   MAXIMUM(x, 0)                                         -> RELU(x)
//   MINIMUM(MAXIMUM(x, lo), hi), MAXIMUM(MINIMUM(x, hi), lo)
//   and MINIMUM(RELU(x), hi)   with [lo, hi] = [0, 6]     -> RELU6(x)
//                              with [lo, hi] = [-1, 1]    -> RELU_N1_TO_1(x)
//   DIV(1, SQRT(x))                                       -> RSQRT(x)
// Only plain float32 values; constants must be splats that do not widen the result by
// broadcasting; inner operators must have no other reader. The replacement writes the
// outer operator's output tensor, so names and subgraph outputs stay.
#include "fuse_activation.h"
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

// The other operand of binary `op` when one operand is a splat constant equal to `value`
// that leaves the result the shape of that other operand.
int32_t operandBesideSplat(const SubgraphEditor &e, int op, double value) {
  const CircleOperator &o = e.op(op);
  if (o.inputs.size() != 2 || o.outputs.size() != 1 || !hasNoFusedActivation(o))
    return -1;
  const int32_t out = o.outputs[0];
  for (int k = 0; k < 2; ++k) {
    int32_t c = o.inputs[k], x = o.inputs[1 - k];
    if (!e.validTensor(x) || !e.validTensor(out) || !isPlainFloat32(e.tensor(x)) ||
        !sameContract(e.tensor(x), e.tensor(out)))
      continue;
    if (e.isConstantTensor(c) && constantIsSplat(e.model(), e.tensor(c), value))
      return x;
  }
  return -1;
}

// The splat value of the constant operand of binary `op`, with the other operand.
std::optional<std::pair<double, int32_t>> splatOperand(const SubgraphEditor &e, int op) {
  const CircleOperator &o = e.op(op);
  if (o.inputs.size() != 2 || o.outputs.size() != 1 || !hasNoFusedActivation(o))
    return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    int32_t c = o.inputs[k], x = o.inputs[1 - k];
    if (!e.validTensor(x) || !e.validTensor(o.outputs[0]) || !isPlainFloat32(e.tensor(x)) ||
        !sameContract(e.tensor(x), e.tensor(o.outputs[0])) || !e.isConstantTensor(c))
      continue;
    auto values = constantAsDoubles(e.model(), e.tensor(c));
    if (!values || values->empty())
      continue;
    double v = (*values)[0];
    if (constantIsSplat(e.model(), e.tensor(c), v))
      return std::pair{v, x};
  }
  return std::nullopt;
}

void replaceWithUnary(SubgraphEditor &e, int op, BuiltinOperator code, int32_t x) {
  replaceOp(e, op, code, {x}, circle::BuiltinOptionsUnion{});
}

bool recognizeRelu(SubgraphEditor &e, int i) {
  int32_t x = operandBesideSplat(e, i, 0.0);
  if (x < 0)
    return false;
  replaceWithUnary(e, i, BuiltinOperator::RELU, x);
  return true;
}

std::optional<BuiltinOperator> clampCode(double lo, double hi) {
  if (lo == 0.0 && hi == 6.0)
    return BuiltinOperator::RELU6;
  if (lo == -1.0 && hi == 1.0)
    return BuiltinOperator::RELU_N1_TO_1;
  return std::nullopt;
}

// outer = MINIMUM or MAXIMUM with a splat; inner = the other one (or RELU) with a single use.
bool recognizeClamp(SubgraphEditor &e, int outer) {
  auto o = splatOperand(e, outer);
  if (!o)
    return false;
  const auto [outer_value, mid] = *o;
  int inner = e.producer(mid);
  if (inner < 0 || !e.onlyUseIs(mid, outer) || e.sideEffects(inner))
    return false;
  const bool outer_is_min = e.code(outer) == BuiltinOperator::MINIMUM;
  double lo, hi;
  int32_t x;
  if (outer_is_min && e.code(inner) == BuiltinOperator::RELU && e.op(inner).inputs.size() == 1) {
    lo = 0.0, hi = outer_value, x = e.op(inner).inputs[0];
    if (!e.validTensor(x) || !sameContract(e.tensor(x), e.tensor(mid)))
      return false;
  } else if (e.code(inner) == (outer_is_min ? BuiltinOperator::MAXIMUM : BuiltinOperator::MINIMUM)) {
    auto in = splatOperand(e, inner);
    if (!in)
      return false;
    x = in->second;
    lo = outer_is_min ? in->first : outer_value;
    hi = outer_is_min ? outer_value : in->first;
  } else {
    return false;
  }
  auto code = clampCode(lo, hi);
  if (!code)
    return false;
  replaceWithUnary(e, outer, *code, x);
  return true;
}

bool recognizeRsqrt(SubgraphEditor &e, int i) {
  const CircleOperator &div = e.op(i);
  if (div.inputs.size() != 2 || div.outputs.size() != 1 || !hasNoFusedActivation(div))
    return false;
  const int32_t one = div.inputs[0], root = div.inputs[1], out = div.outputs[0];
  if (!e.isConstantTensor(one) || !constantIsSplat(e.model(), e.tensor(one), 1.0) || !e.validTensor(root) ||
      !e.validTensor(out) || !isPlainFloat32(e.tensor(root)) || !sameContract(e.tensor(root), e.tensor(out)))
    return false;
  int sqrt = e.producer(root);
  if (sqrt < 0 || e.code(sqrt) != BuiltinOperator::SQRT || e.op(sqrt).inputs.size() != 1 || !e.onlyUseIs(root, i))
    return false;
  const int32_t x = e.op(sqrt).inputs[0];
  if (!e.validTensor(x) || !sameContract(e.tensor(x), e.tensor(root)))
    return false;
  replaceWithUnary(e, i, BuiltinOperator::RSQRT, x);
  e.removeOp(sqrt);
  return true;
}

class FuseCompositeOps final : public CirclePass {
public:
  explicit FuseCompositeOps(const Options &options) {
    policy_.allow_tanh = options.getBool("allow_tanh");
    policy_.allow_concatenation = options.getBool("allow_concatenation");
  }

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [&](SubgraphEditor &e, int i) {
      switch (e.code(i)) {
      case BuiltinOperator::MAXIMUM: return recognizeClamp(e, i) || recognizeRelu(e, i);
      case BuiltinOperator::MINIMUM: return recognizeClamp(e, i);
      case BuiltinOperator::DIV: return recognizeRsqrt(e, i);
      default: return fuseActivationIntoProducer(e, i, policy_);
      }
    });
  }

private:
  ActivationFusionPolicy policy_;
};

} // namespace

void registerFuseCompositeOps(Registrar &r) {
  registerCirclePass<FuseCompositeOps>(
      r, "fuse-composite-ops",
      "fuse activations into producers; MIN/MAX clamps -> RELU/RELU6/RELU_N1_TO_1; 1/SQRT -> RSQRT",
      activationFusionOptions());
}

} // namespace tico::circle_passes
