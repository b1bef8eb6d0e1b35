// Result types of ATen ops, computed from their arguments the way PyTorch's meta functions do
// for the ops passes create and rewrite: elementwise type promotion, broadcasting, and the
// shape functions of views, reductions, matrix products and constructors.
//
// Rewrites use this to type the nodes they create, and fill-meta-val uses it to type nodes
// that reached the graph without types. Symbolic dims are supported where the result is a
// product or an exact quotient of input dims (see tico/ir/shape_utils.h); where PyTorch would need a guard
// or a new symbol the rule reports "unknown" instead of guessing.
#pragma once

#include "tico/ir/graph.h"
#include "tico/ir/shape_utils.h"
#include "tico/plugin/registry.h"

#include <optional>
#include <string>
#include <vector>

namespace tico::passes {

// c10::promoteTypes for the dtypes of the IR; nullopt where PyTorch refuses (e.g. uint64 with
// a signed type).
std::optional<DType> promoteTypes(DType a, DType b);

// torch.result_type over the operands of an elementwise op: tensors of rank > 0 outrank rank-0
// tensors, which outrank numbers (a Python float counts as float32, an int as int64, a bool as
// bool); a lower class only matters when its category (bool < integer < floating) is higher.
// Arguments that are None are skipped. Returns Unknown when no operand has a dtype.
DType resultType(const std::vector<const Argument *> &operands);

// The dtype a Python number argument stands for in promotion (Float -> float32, Int -> int64,
// Bool -> bool).
DType numberDType(const Argument &number);

// Registers the result-type rules of the ATen ops above with the registry (Registrar::
// addTypeRule); the Builder and fill-meta-val find them there (tico/rewrite/type_rule.h).
void registerTypeRules(Registrar &registrar);

} // namespace tico::passes
