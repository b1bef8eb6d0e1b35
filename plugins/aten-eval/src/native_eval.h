// Native evaluation of the small constant computations exported models carry: position ids,
// causal masks, rotary tables, cumsum helpers built from arange, reshape, slice, cat, compare,
// cast and element-wise arithmetic on constants. Folding them through LibTorch cost every such
// conversion ~0.25 s and ~110 MiB of resident memory (loading libtorch_cpu), more than the rest
// of converting a 1 B-parameter model apart from copying its weights. LibTorch stays the
// evaluator for everything this file does not cover.
//
// Results follow PyTorch's CPU semantics bit for bit for integer and boolean ops and for float
// add / sub / mul / div (computed in double and rounded once: exact for float32 operands). Two
// places may differ from LibTorch by rounding only, which tests/unit/eval_native_test.cpp bounds:
// cos / sin / exp / rsqrt (the C library against ATen's vectorised SLEEF, <= 1 ulp) and float
// matmul (a double accumulation rounded once, where BLAS rounds per partial sum).
#pragma once

#include "tico/eval/evaluator.h"

namespace tico::aten_eval {

// True when `node`'s op is covered and its tensors have dtypes and static shapes covered here.
bool canEvaluateNatively(const Node &node);

// One EvalValue per output; throws tico::Error when an argument is out of range (an index, a
// slice step) so that the caller keeps the node.
std::vector<EvalValue> evaluateNatively(const Node &node, const EvalEnv &env);

} // namespace tico::aten_eval
