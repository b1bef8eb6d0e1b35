// Result types of ATen ops, computed from their arguments the way PyTorch's meta functions do
// for the ops passes create and rewrite: elementwise type promotion, broadcasting, and the
// shape functions of views, reductions, matrix products and constructors.
//
// Rewrites use this to type the nodes they create, and fill-meta-val uses it to type nodes
// that reached the graph without types. Symbolic dims are supported where the result is a
// product or an exact quotient of input dims (see dims.h); where PyTorch would need a guard
// or a new symbol the rule reports "unknown" instead of guessing.
#pragma once

#include "tico/ir/graph.h"

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

// NumPy-style broadcast of two shapes; nullopt when two static sizes disagree.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);

// Output types of `node`, inferred from its arguments; nullopt when the op has no rule or
// the arguments are outside what the rule handles (the reason is in *why when given).
std::optional<std::vector<TensorTypeSpec>> inferOutputTypes(const Node &node, std::string *why = nullptr);

// Applies inferOutputTypes to the node's outputs (kinds, dtypes, shapes and, for SymInt
// outputs, the expression). Returns false when no rule applies.
bool applyInferredTypes(Node &node);

// The ops that have a type rule, as "ns::name" (a rule covers every overload but a few). The
// plugin declares them to the registrar, so a misspelt rule key is a load error.
std::vector<std::string> typeRuleOps();

// Normalised (non-negative) dim for `rank`; throws tico::Error when out of range.
int64_t wrapDim(int64_t dim, int64_t rank);

} // namespace tico::passes
