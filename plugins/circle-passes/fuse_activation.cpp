// fuse-activation-function: RELU / RELU6 / RELU_N1_TO_1 (/ TANH) folded into the producer.
//
// The producer must have a single reader (the activation), no effects, a fused-activation
// field whose current value composes with the new one (RELU after RELU6 is RELU6, ...), and
// a plain float32 result with the activation's contract. The producer then writes the
// activation's output tensor, so the tensor names users see (and subgraph outputs) stay.
#include "fuse_activation.h"

#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {

namespace {

bool acceptsFusedActivation(BuiltinOperator code, const ActivationFusionPolicy &policy) {
  switch (code) {
  case BuiltinOperator::ADD:
  case BuiltinOperator::SUB:
  case BuiltinOperator::MUL:
  case BuiltinOperator::DIV:
  case BuiltinOperator::CONV_2D:
  case BuiltinOperator::DEPTHWISE_CONV_2D:
  case BuiltinOperator::FULLY_CONNECTED:
  case BuiltinOperator::TRANSPOSE_CONV:
  case BuiltinOperator::AVERAGE_POOL_2D:
  case BuiltinOperator::MAX_POOL_2D:
  case BuiltinOperator::L2_POOL_2D:
    return true;
  case BuiltinOperator::CONCATENATION:
    return policy.allow_concatenation;
  default:
    return false;
  }
}

} // namespace

bool fuseActivationIntoProducer(SubgraphEditor &e, int i, const ActivationFusionPolicy &policy) {
  auto activation = activationForOperator(e.code(i));
  const CircleOperator &act = e.op(i);
  if (!activation || act.inputs.size() != 1 || act.outputs.size() != 1)
    return false;
  if (*activation == circle::ActivationFunctionType::TANH && !policy.allow_tanh)
    return false;
  const int32_t t = act.inputs[0], y = act.outputs[0];
  if (!e.validTensor(t) || !e.validTensor(y) || !isFloat32Activation(e.tensor(t)) || !sameContract(e.tensor(t), e.tensor(y)))
    return false;
  const int producer = e.producer(t);
  if (producer < 0 || e.sideEffects(producer) || e.op(producer).outputs.size() != 1 || !e.onlyUseIs(t, i) ||
      !acceptsFusedActivation(e.code(producer), policy))
    return false;
  auto current = fusedActivationOf(e.op(producer));
  if (!current)
    return false;
  std::optional<circle::ActivationFunctionType> combined;
  if (*activation == circle::ActivationFunctionType::TANH)
    combined = *current == circle::ActivationFunctionType::NONE ? activation : std::nullopt;
  else
    combined = composeActivations(*current, *activation);
  if (!combined)
    return false;
  setFusedActivation(e.op(producer), *combined);
  e.removeOp(i);
  e.setOutput(producer, 0, y);
  return true;
}

namespace {

ActivationFusionPolicy policyFrom(const Options &options) {
  ActivationFusionPolicy p;
  p.allow_tanh = options.getBool("allow_tanh");
  p.allow_concatenation = options.getBool("allow_concatenation");
  return p;
}

class FuseActivationFunction final : public CirclePass {
public:
  explicit FuseActivationFunction(const Options &options) : policy_(policyFrom(options)) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [&](SubgraphEditor &e, int i) { return fuseActivationIntoProducer(e, i, policy_); });
  }

private:
  ActivationFusionPolicy policy_;
};

} // namespace

std::vector<OptionSpec> activationFusionOptions() {
  return {
      {"allow_tanh", OptionType::Bool, false,
       "also fuse TANH (onert and TFLite do not execute a fused TANH; enable only for runtimes that do)"},
      {"allow_concatenation", OptionType::Bool, false,
       "also fuse into CONCATENATION (onert ignores that activation and TFLite rejects it)"},
  };
}

void registerFuseActivationFunction(Registrar &r) {
  registerCirclePass<FuseActivationFunction>(
      r, "fuse-activation-function",
      "fold RELU/RELU6/RELU_N1_TO_1 (optionally TANH) into the fused activation of a single-use producer",
      activationFusionOptions());
}

} // namespace tico::circle_passes
