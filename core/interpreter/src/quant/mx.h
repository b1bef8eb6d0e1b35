// MX (microscaling) tensors in the interpreter: Circle MXINT8 / MXFP4 tensors hold float32
// values here that are MX quantize-dequantized whenever they are written (docs/quantization.md,
// "MX"): along `axis`, every block of 32 consecutive elements (the last one shorter) shares the
// power-of-two exponent of its largest magnitude, and each element is rounded to the format's
// grid with that exponent. The arithmetic is float32 in the order of the original converter's
// eager `circle_custom::mx_fake_quantize` (shared_exp_method "max", round "nearest"), so the
// values equal eager's.
#pragma once

#include "tensor.h"

#include "tico/circle/model.h"

namespace tico::interp::quant {

// Circle MX types with a format here: MXINT8, MXFP4.
bool isMxType(circle::TensorType type);

// `in` (float32) quantize-dequantized to the MX format of `type` along `axis`, as a new tensor.
Tensor mxQuantizeDequantize(const Tensor &in, circle::TensorType type, int64_t axis);

} // namespace tico::interp::quant
