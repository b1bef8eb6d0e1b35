// legalize-dynamic-fully-connected: FULLY_CONNECTED whose weights are computed at run time
// becomes BATCH_MATMUL(x, W, adj_y) [+ RESHAPE] [+ ADD bias with the fused activation, or the
// standalone activation], for runtimes that only accept constant FC weights.
//
// Plain float32, static shapes, weights of rank 2, input of rank >= 2, default weights format,
// and an absent or float32 [units] bias. The last operator writes the FC's output tensor, so
// readers and subgraph outputs are unchanged.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

std::optional<BuiltinOperator> standaloneActivation(circle::ActivationFunctionType a) {
  switch (a) {
  case circle::ActivationFunctionType::RELU: return BuiltinOperator::RELU;
  case circle::ActivationFunctionType::RELU6: return BuiltinOperator::RELU6;
  case circle::ActivationFunctionType::RELU_N1_TO_1: return BuiltinOperator::RELU_N1_TO_1;
  case circle::ActivationFunctionType::TANH: return BuiltinOperator::TANH;
  default: return std::nullopt;
  }
}

bool legalize(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::FULLY_CONNECTED)
    return false;
  const CircleOperator &fc = e.op(i);
  const auto *o = fc.builtin_options.AsFullyConnectedOptions();
  if (!o || o->weights_format != circle::FullyConnectedOptionsWeightsFormat::DEFAULT || fc.inputs.size() < 2 ||
      fc.outputs.size() != 1)
    return false;
  const int32_t x = fc.inputs[0], w = fc.inputs[1], bias = fc.inputs.size() > 2 ? fc.inputs[2] : -1;
  const int32_t out = fc.outputs[0];
  if (!e.validTensor(w) || e.isConstantTensor(w) || !e.validTensor(x) || !e.validTensor(out))
    return false;
  for (int32_t t : {x, w, out})
    if (!isPlainFloat32(e.tensor(t)))
      return false;
  const std::vector<int32_t> xs = e.tensor(x).shape, ws = e.tensor(w).shape, os = e.tensor(out).shape;
  if (ws.size() != 2 || xs.size() < 2 || xs.back() != ws[1] || ws[0] <= 0)
    return false;
  std::vector<int32_t> bmm_shape = xs;
  bmm_shape.back() = ws[0];
  std::vector<int32_t> expected = o->keep_num_dims
                                      ? bmm_shape
                                      : std::vector<int32_t>{static_cast<int32_t>(elementCount(xs) / xs.back()), ws[0]};
  if (os != expected)
    return false;
  if (bias >= 0 && (!e.validTensor(bias) || !isPlainFloat32(e.tensor(bias)) ||
                    e.tensor(bias).shape != std::vector<int32_t>{ws[0]}))
    return false;
  const auto activation = o->fused_activation_function;
  const bool has_activation = activation != circle::ActivationFunctionType::NONE;
  if (has_activation && !standaloneActivation(activation))
    return false;
  const bool reshape = bmm_shape != os;

  e.removeOp(i);
  int32_t current = (reshape || bias >= 0 || has_activation)
                        ? e.addTensorLike(out, bmm_shape, derivedName(e, out, "batch_matmul"))
                        : out;
  circle::BatchMatMulOptionsT bmm;
  bmm.adjoint_rhs = true;
  e.addOp(BuiltinOperator::BATCH_MATMUL, {x, w}, {current}, makeOptions(std::move(bmm)), i);
  if (reshape) {
    int32_t next = (bias >= 0 || has_activation) ? e.addTensorLike(out, os, derivedName(e, out, "reshape")) : out;
    addReshape(e, current, next, os, i);
    current = next;
  }
  if (bias >= 0) {
    circle::AddOptionsT add;
    add.fused_activation_function = activation;
    e.addOp(BuiltinOperator::ADD, {current, bias}, {out}, makeOptions(std::move(add)), i);
  } else if (has_activation) {
    e.addOp(*standaloneActivation(activation), {current}, {out}, circle::BuiltinOptionsUnion{}, i);
  }
  return true;
}

class LegalizeDynamicFullyConnected final : public CirclePass {
public:
  explicit LegalizeDynamicFullyConnected(const Options &) {}
  bool run(CircleModel &model, PassContext &) override { return sweepToFixedPoint(model, legalize); }
};

} // namespace

void registerLegalizeDynamicFullyConnected(Registrar &r) {
  registerCirclePass<LegalizeDynamicFullyConnected>(
      r, "legalize-dynamic-fully-connected",
      "FULLY_CONNECTED with run-time weights -> BATCH_MATMUL(adj_y) [+ RESHAPE] [+ ADD bias / activation]");
}

} // namespace tico::circle_passes
