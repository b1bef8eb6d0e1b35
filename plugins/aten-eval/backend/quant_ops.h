// Evaluation of the quantized_decomposed ops (quantize/dequantize per tensor and per channel).
//
// PyTorch registers these ops from Python (torch/ao/quantization/fx/_decomposed.py), so a C++
// process has no kernel for them in the dispatcher. The evaluator computes them here with the
// same ATen ops, in the same order, as PyTorch's Python implementations, so the results are
// bit-identical to eager PyTorch (round half to even, clamp to [quant_min, quant_max], cast).
// Backend only: includes torch through ivalue_conversion.h.
#pragma once

#include "ivalue_conversion.h"

namespace tico::aten_eval {

// True for the ops implemented here (every overload of quantize_per_tensor,
// dequantize_per_tensor, quantize_per_channel, dequantize_per_channel).
bool hasQuantKernel(const OpKey &op);
// Runs one of them; throws tico::Error naming the node (wrong input dtype, a range outside the
// storage dtype, qparams of the wrong size, ...), as PyTorch's implementation refuses them.
std::vector<EvalValue> evaluateQuantOp(const Node &node, const EvalEnv &env);

} // namespace tico::aten_eval
