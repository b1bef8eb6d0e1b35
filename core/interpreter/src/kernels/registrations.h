// One registration function per kernel family (src/kernels/*.cpp); registry.cpp calls them all.
#pragma once

#include "kernel.h"

namespace tico::interp {

void registerActivationKernels(KernelTable &table);
void registerArgMinMaxKernels(KernelTable &table);
void registerAttentionKernel(KernelTable &table);
void registerBatchMatMulKernel(KernelTable &table);
void registerBinaryKernels(KernelTable &table);
void registerBroadcastToKernels(KernelTable &table);
void registerCastKernel(KernelTable &table);
void registerComparisonKernels(KernelTable &table);
void registerConcatKernels(KernelTable &table);
void registerControlFlowKernels(KernelTable &table);
void registerConv2DKernel(KernelTable &table);
void registerCumsumKernel(KernelTable &table);
void registerDepthwiseConv2DKernel(KernelTable &table);
void registerDynamicUpdateSliceKernel(KernelTable &table);
void registerFillKernels(KernelTable &table);
void registerFullyConnectedKernel(KernelTable &table);
void registerGatherKernels(KernelTable &table);
void registerInstanceNormKernel(KernelTable &table);
void registerPadKernels(KernelTable &table);
void registerPoolKernels(KernelTable &table);
void registerQuantizeKernels(KernelTable &table);
// The quantized kernels (kernels/quantized/); registered last.
void registerQuantizedKernels(KernelTable &table);
void registerReduceKernels(KernelTable &table);
void registerReshapeKernels(KernelTable &table);
void registerReverseKernel(KernelTable &table);
void registerResizeKernels(KernelTable &table);
void registerRmsNormKernel(KernelTable &table);
void registerRopeKernel(KernelTable &table);
void registerScatterNdKernel(KernelTable &table);
void registerSelectKernels(KernelTable &table);
void registerSliceKernels(KernelTable &table);
void registerSoftmaxKernels(KernelTable &table);
void registerSplitKernels(KernelTable &table);
void registerStridedSliceKernel(KernelTable &table);
void registerTopKKernel(KernelTable &table);
void registerTransposeConvKernel(KernelTable &table);
void registerTransposeKernel(KernelTable &table);
void registerUnaryKernels(KernelTable &table);

} // namespace tico::interp
