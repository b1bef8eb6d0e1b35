// Transposed 2-D convolution -> TRANSPOSE_CONV (+ SLICE for PyTorch's padding), shared by
// conv_transpose2d, convolution(transposed=True) and circle::transpose_conv.
#pragma once

#include "support.h"

namespace tico::lowering {

// convolution.default with transposed=True.
bool isTransposedConvolution(const Node &node);
// Why the node cannot be lowered, or "". `nhwc`: circle::transpose_conv (NHWC input, OHWI
// weight) instead of the ATen form (NCHW input, IOHW weight).
std::string transposeConvUnsupported(const Node &node, bool nhwc);
void lowerTransposeConv(const Node &node, CircleEmitter &emit, bool nhwc);

} // namespace tico::lowering
