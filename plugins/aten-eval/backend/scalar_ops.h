// Ops that compute Python scalars rather than tensors: `_operator.*`, `torch.sym_*`, `math.*`
// and the symbolic size queries (`aten::sym_size.int`, ...). torch.export records them for
// dynamic shapes; they are not dispatcher ops (or are trivial), so they run here directly.
#pragma once

#include "tico/eval/evaluator.h"

namespace tico::aten_eval {

bool isScalarOp(const OpKey &op);
// Runs a scalar op; throws tico::Error naming the node for bad arguments (division by zero,
// an operand without a value, a non-scalar operand).
std::vector<EvalValue> evaluateScalarOp(const Node &node, const EvalEnv &env);

} // namespace tico::aten_eval
