// Quantization parameters as the quantized kernels read them from a Circle tensor, validated
// once, plus the element types of packed 4-bit constants.
//
// Circle convention: real = scale · (q − zero_point); per-channel parameters run along
// `quantized_dimension`. 4-bit tensors (UINT4 = −1, INT4 = 17) store two elements per byte,
// element 2k in the low nibble; the interpreter unpacks them to one byte per element (uint8 /
// int8, with tico::unpackInt4) when it prepares the model, so kernels only ever see 8-bit
// weights. Integer ranges come from tico::qmin / tico::qmax.
#pragma once

#include "tensor.h"

#include "tico/circle/model.h"
#include "tico/ir/dtype.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tico::interp::quant {

// The interpreter's element type for a Circle tensor type: UINT4 -> uint8, INT4 -> int8 (the
// unpacked form), everything else as fromCircleType. Throws for types without one.
DType elementTypeOf(circle::TensorType type);
bool isPackedFourBit(circle::TensorType type);
// `count` 4-bit elements of `packed`, one byte each (tico::unpackInt4; signed ones sign-extended).
std::vector<std::byte> unpackFourBit(const std::vector<std::byte> &packed, int64_t count, bool is_signed);

// An integer tensor with quantization scales: what the quantized kernels run on.
bool isQuantizedTensor(const CircleTensor &tensor);

struct QParams {
  std::vector<double> scale;
  std::vector<int64_t> zero_point;
  int64_t axis = -1; // quantized dimension; -1 for per-tensor parameters

  bool perChannel() const { return axis >= 0; }
  std::size_t channels() const { return scale.size(); }
  double scaleAt(std::size_t c) const { return scale[perChannel() ? c : 0]; }
  int64_t zeroPointAt(std::size_t c) const { return zero_point[perChannel() ? c : 0]; }
};

// The validated parameters of `tensor` (`role` names it in messages, e.g. "weights"): scales
// positive and finite, zero points inside the element type's range, one zero point per scale
// (absent = 0), per-channel length equal to the dim at quantized_dimension.
QParams qparamsOf(const CircleTensor &tensor, const std::string &role);
// The same, requiring a single scale.
QParams perTensorQParams(const CircleTensor &tensor, const std::string &role);

// The integer clamp range of a fused activation for an output with `scale`/`zero_point` of
// `dtype`: the activation's real bounds mapped into the quantized domain, intersected with
// the type's range. Throws for activations that are not a clamp (TANH, SIGN_BIT).
struct Range {
  int64_t lo = 0, hi = 0;
};
Range activationRange(circle::ActivationFunctionType activation, double scale, int64_t zero_point, DType dtype);

// "int8 (scale 0.05, zero point 3)", "uint8 (per-channel, 16 scales on dim 0)", "float32": for
// messages about unsupported type combinations.
std::string describeType(const CircleTensor &tensor);

// True when both tensors carry the same (per-tensor) scale and zero point, so raw integers can
// be moved from one to the other unchanged.
bool sameQParams(const CircleTensor &a, const CircleTensor &b);

} // namespace tico::interp::quant
