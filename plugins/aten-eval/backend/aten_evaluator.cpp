// The LibTorch-backed evaluator: runs aten/prims ops by name through the c10 dispatcher.
// This is the only code in tico that includes torch headers; it is loaded on demand by the
// aten-eval plugin (see src/backend_loader.cpp).
#include "circle_ops.h"
#include "ivalue_conversion.h"
#include "node_inputs.h"
#include "quant_ops.h"
#include "scalar_ops.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>

#include <mutex>
#include <unordered_map>

namespace tico::aten_eval {
namespace {

// Namespaces whose ops LibTorch itself registers. quantized_decomposed ops are registered
// from Python only: the quantize/dequantize ones run the kernels of quant_ops.cpp, the others
// are found only when a Python process registered them.
bool isDispatcherNamespace(const std::string &ns) {
  return ns == "aten" || ns == "prims" || ns == "quantized_decomposed";
}

bool writesAnything(const c10::FunctionSchema &schema) {
  for (const c10::Argument &a : schema.arguments())
    if (a.alias_info() != nullptr && a.alias_info()->isWrite())
      return true;
  for (const c10::Argument &r : schema.returns())
    if (r.alias_info() != nullptr && r.alias_info()->isWrite())
      return true;
  return false;
}

// Nodes of ops with a tico schema carry every argument by name. Without one (a schema the
// core does not ship) the arguments are as the file gave them: match by name, else position.
const Argument *argumentFor(const Node &node, const c10::Argument &schema_arg, std::size_t index) {
  if (const Argument *arg = node.findArg(schema_arg.name()))
    return arg;
  if (node.schema() == nullptr && index < node.numArgs() && !schema_arg.kwarg_only())
    return &node.arg(index);
  return nullptr;
}

// In-place ops that only change autograd state. For inference they are the identity on their
// input, and the in-place form returns that same tensor (torch.export keeps detach_ on tensors
// built inside forward, e.g. torch.tensor(...) constants).
bool isInferenceIdentity(const OpKey &op) { return op.ns == "aten" && op.name == "detach_" && op.overload == "default"; }

class AtenEvaluator final : public Evaluator {
public:
  bool canEvaluate(const Node &node) const override {
    if (isScalarOp(node.op()))
      return true;
    if (isCircleNamespace(node.op()))
      return hasCircleKernel(node);
    if (hasQuantKernel(node.op()))
      return true;
    if (isInferenceIdentity(node.op()))
      return node.numArgs() >= 1 && node.arg(0).isValue() && node.numOutputs() == 1;
    auto handle = find(node.op());
    // The computed dispatch table folds composite kernels and fallbacks into the CPU entry.
    if (!handle || !handle->hasComputedKernelForDispatchKey(c10::DispatchKey::CPU))
      return false;
    const c10::FunctionSchema &schema = handle->schema();
    if (writesAnything(schema) || schema.is_vararg() || schema.is_varret())
      return false;
    for (const c10::Argument &a : schema.arguments())
      if (!supportsArgumentType(a.real_type()))
        return false;
    for (const c10::Argument &r : schema.returns())
      if (!supportsReturnType(r.real_type()))
        return false;
    return true;
  }

  std::vector<EvalValue> evaluate(const Node &node, const EvalEnv &env) const override {
    if (isScalarOp(node.op()))
      return evaluateScalarOp(node, env);
    if (isCircleNamespace(node.op()))
      return evaluateCircleOp(node, env);
    if (hasQuantKernel(node.op()))
      return evaluateQuantOp(node, env);
    if (isInferenceIdentity(node.op()) && canEvaluate(node))
      return {lookupValue(node, node.arg(0).asValue(), env)};
    if (!canEvaluate(node))
      throw nodeError(node, "LibTorch has no CPU kernel for this op or it takes arguments the "
                            "evaluator cannot pass (an op that writes its inputs, a custom class, ...)");
    const c10::OperatorHandle handle = *find(node.op());
    const c10::FunctionSchema &schema = handle.schema();

    c10::InferenceMode inference;
    InputStorages storages;
    torch::jit::Stack stack;
    stack.reserve(schema.arguments().size());
    reportingNode(node, [&] {
      for (std::size_t i = 0; i < schema.arguments().size(); ++i) {
        const c10::Argument &schema_arg = schema.arguments()[i];
        if (const Argument *arg = argumentFor(node, schema_arg, i))
          stack.push_back(toIValue(node, *arg, schema_arg, env, storages));
        else if (schema_arg.default_value())
          stack.push_back(*schema_arg.default_value());
        else
          throw nodeError(node, "argument '" + schema_arg.name() + "' is missing and has no default");
      }
      handle.callBoxed(stack);
    });

    std::vector<EvalValue> results;
    for (const c10::IValue &r : stack)
      appendResults(node, r, storages, results);
    if (results.size() != node.numOutputs())
      throw nodeError(node, "LibTorch returned " + std::to_string(results.size()) + " values but the node has " +
                                std::to_string(node.numOutputs()) + " outputs");
    return results;
  }

private:
  // Dispatcher lookups take a lock and hash the name; graphs repeat the same ops a lot.
  std::optional<c10::OperatorHandle> find(const OpKey &op) const {
    if (!isDispatcherNamespace(op.ns))
      return std::nullopt;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = handles_.find(op.str());
    if (it == handles_.end()) {
      const std::string overload = op.overload == "default" ? "" : op.overload;
      it = handles_.emplace(op.str(), c10::Dispatcher::singleton().findSchema({op.qualifiedName(), overload})).first;
    }
    return it->second;
  }

  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, std::optional<c10::OperatorHandle>> handles_;
};

} // namespace
} // namespace tico::aten_eval

// The backend's only export; the plugin looks it up with dlsym.
extern "C" __attribute__((visibility("default"))) tico::Evaluator *tico_aten_evaluator_create() {
  return new tico::aten_eval::AtenEvaluator();
}
