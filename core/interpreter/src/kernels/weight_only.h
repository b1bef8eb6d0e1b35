// Weight-only quantized operators read their integer weights as they are.
//
// A weight-only model stores integer codes and reads them through DEQUANTIZE: FULLY_CONNECTED
// (float activations) reads DEQUANTIZE(codes) as its weights, GATHER (an embedding) reads it as
// its table. Folding that DEQUANTIZE when the model is prepared would keep a float copy of every
// such weight (4 bytes per element for a 4-bit weight: an LLM's embedding alone is 670 MB) and
// read it on every run. Instead the interpreter points these readers at the codes and runs them
// with the kernels below, which dequantize inside their loops: the values are the same
// (real = scale · (code − zero point), per output channel or per tensor), the bytes read per run
// are the codes'. float16 weights (a half-precision checkpoint stored as FLOAT16 + DEQUANTIZE,
// store-float16-weights) are read the same way, widened exactly, without parameters.
#pragma once

#include "kernel.h"

#include "tico/circle/model.h"

#include <cstddef>

namespace tico::interp {

const KernelInfo &weightOnlyFullyConnectedKernel();
const KernelInfo &weightOnlyGatherKernel();

// The kernel that reads `codes` (the constant input of a DEQUANTIZE whose output is tensor
// `dequantized`) in place of that output for operator `reader`, or null when the reader cannot
// (another operator, another input slot, types or options the kernels above do not take).
const KernelInfo *weightOnlyKernelFor(const CircleModel &model, const CircleSubGraph &graph, const CircleOperator &reader,
                                      int32_t dequantized, const CircleTensor &codes);

} // namespace tico::interp
