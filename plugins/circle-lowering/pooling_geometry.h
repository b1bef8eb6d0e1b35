// Window geometry shared by convolution and pooling: when Circle's SAME/VALID padding equals
// PyTorch's explicit padding, and the explicit PAD/PADV2 fallback.
#pragma once

#include "tico/lowering/lowering.h"

#include <memory>
#include <string>

namespace tico::lowering {

// One spatial axis of a sliding window.
struct Window {
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t kernel = 1;
  int64_t pad = 0; // PyTorch's symmetric padding
};

enum class PaddingChoice { Valid, Same, Explicit };

// Output size PyTorch computes along one axis (floor mode).
int64_t windowOutputSize(int64_t input, const Window &w);
// VALID when no padding; SAME when TFLite's SAME padding produces exactly PyTorch's windows
// on both axes (for a symbolic size: stride 1 and pad = dilation*(kernel-1)/2, which holds for
// every size); Explicit otherwise.
PaddingChoice choosePadding(const Dim &height, const Dim &width, const Window &h, const Window &w);

// Pads an NHWC tensor by `ph` rows and `pw` columns on each side: PAD with zeros, or PADV2
// with `pad_value` (a rank-0 constant of the tensor's dtype) when given. Returns the result.
int32_t emitSpatialPad(CircleEmitter &emit, int32_t input, DType dtype, const Shape &nhwc, int64_t ph, int64_t pw,
                       std::shared_ptr<const TensorData> pad_value, const std::string &base);
Shape paddedShape(const Shape &nhwc, int64_t ph, int64_t pw);

} // namespace tico::lowering
