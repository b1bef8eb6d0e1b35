// One registration function per quantized kernel family (src/kernels/quantized/*.cpp);
// registerQuantizedKernels (register.cpp) calls them all, after the plain kernels, because the
// data-movement entries reuse the plain kernels' run functions.
#pragma once

#include "kernel.h"

namespace tico::interp {

void registerQuantizedActivations(KernelTable &table);
void registerQuantizedBatchMatMul(KernelTable &table);
void registerQuantizedConcatenation(KernelTable &table);
void registerQuantizedConv2D(KernelTable &table);
void registerQuantizedDataMovement(KernelTable &table);
void registerQuantizedDepthwiseConv2D(KernelTable &table);
void registerQuantizedElementwise(KernelTable &table);
void registerQuantizedFullyConnected(KernelTable &table);
void registerQuantizedGather(KernelTable &table);
void registerQuantizedMean(KernelTable &table);
void registerQuantizedPool(KernelTable &table);
void registerQuantizedRmsNorm(KernelTable &table);
void registerQuantizedSoftmax(KernelTable &table);
void registerQuantizedTransposeConv(KernelTable &table);

} // namespace tico::interp
