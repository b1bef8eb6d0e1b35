#include "kernels/quantized/registrations.h"
#include "kernels/registrations.h"

namespace tico::interp {

void registerQuantizedKernels(KernelTable &table) {
  registerQuantizedActivations(table);
  registerQuantizedBatchMatMul(table);
  registerQuantizedConcatenation(table);
  registerQuantizedConv2D(table);
  registerQuantizedTransposeConv(table);
  registerQuantizedDataMovement(table);
  registerQuantizedDepthwiseConv2D(table);
  registerQuantizedElementwise(table);
  registerQuantizedFullyConnected(table);
  registerQuantizedGather(table);
  registerQuantizedMean(table);
  registerQuantizedPool(table);
  registerQuantizedRmsNorm(table);
  registerQuantizedSoftmax(table);
}

} // namespace tico::interp
