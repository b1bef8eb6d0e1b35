#include "kernel.h"
#include "kernels/registrations.h"

namespace tico::interp {

const KernelTable &kernelTable() {
  static const KernelTable table = [] {
    KernelTable t;
    registerActivationKernels(t);
    registerArgMinMaxKernels(t);
    registerAttentionKernel(t);
    registerBatchMatMulKernel(t);
    registerBinaryKernels(t);
    registerBroadcastToKernels(t);
    registerCastKernel(t);
    registerComparisonKernels(t);
    registerConcatKernels(t);
    registerControlFlowKernels(t);
    registerConv2DKernel(t);
    registerCumsumKernel(t);
    registerDepthwiseConv2DKernel(t);
    registerDynamicUpdateSliceKernel(t);
    registerFillKernels(t);
    registerFullyConnectedKernel(t);
    registerGatherKernels(t);
    registerInstanceNormKernel(t);
    registerPadKernels(t);
    registerPoolKernels(t);
    registerQuantizeKernels(t);
    registerReduceKernels(t);
    registerReshapeKernels(t);
    registerReverseKernel(t);
    registerResizeKernels(t);
    registerRmsNormKernel(t);
    registerRopeKernel(t);
    registerScatterNdKernel(t);
    registerSelectKernels(t);
    registerSliceKernels(t);
    registerSoftmaxKernels(t);
    registerSplitKernels(t);
    registerStridedSliceKernel(t);
    registerTopKKernel(t);
    registerTransposeConvKernel(t);
    registerTransposeKernel(t);
    registerUnaryKernels(t);
    registerQuantizedKernels(t); // after the plain kernels: data movement reuses them
    return t;
  }();
  return table;
}

} // namespace tico::interp
