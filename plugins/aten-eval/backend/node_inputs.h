// Reading a node's inputs out of an EvalEnv. No LibTorch here: shared by the dispatcher path
// and the scalar ops that run without it.
#pragma once

#include "tico/eval/evaluator.h"
#include "tico/support/error.h"

#include <string>

namespace tico::aten_eval {

// "node 'add_1' (aten::add.Tensor): <message>" — every evaluation error names the node and op.
inline Error nodeError(const Node &node, const std::string &message) {
  return Error("node '" + node.name() + "' (" + node.op().str() + "): " + message);
}

// The concrete value of `value`: the environment's entry, else the constant data the graph
// carries (so constant folding needs no environment of its own).
inline EvalValue lookupValue(const Node &node, const Value *value, const EvalEnv &env) {
  if (auto it = env.find(value); it != env.end())
    return it->second;
  if (value->isConstant())
    return EvalValue{value->constant(), std::nullopt};
  throw nodeError(node, "input '" + value->name() + "' has no concrete value");
}

inline std::shared_ptr<const TensorData> lookupTensor(const Node &node, const Value *value,
                                                      const EvalEnv &env) {
  EvalValue v = lookupValue(node, value, env);
  if (!v.tensor)
    throw nodeError(node, "input '" + value->name() + "' is not a tensor");
  return v.tensor;
}

inline double lookupScalar(const Node &node, const Value *value, const EvalEnv &env) {
  EvalValue v = lookupValue(node, value, env);
  if (!v.scalar)
    throw nodeError(node, "input '" + value->name() + "' has no scalar value");
  return *v.scalar;
}

} // namespace tico::aten_eval
