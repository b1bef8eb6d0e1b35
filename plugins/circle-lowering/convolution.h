// NHWC convolution emission shared by the ATen convolutions (which wrap it in TRANSPOSEs) and
// the channels-last circle:: convolutions (which map onto it directly).
#pragma once

#include "pooling_geometry.h"
#include "support.h"

namespace tico::lowering {

// PyTorch's convolution attributes, decoded from any of the conv overloads (their arguments
// share names). `padding` is explicit [ph, pw]; `padding_mode` is set instead for the string
// overloads ("same"/"valid").
struct ConvAttrs {
  std::vector<int64_t> stride, dilation, padding, output_padding;
  std::string padding_mode;
  int64_t groups = 1;
};

ConvAttrs decodeConvAttrs(const Node &node);
// "" when the attributes are 2-D and well-formed, else a reason.
std::string checkConvAttrs(const ConvAttrs &attrs);

enum class ConvKind { Regular, Depthwise };

// Everything the CONV_2D / DEPTHWISE_CONV_2D emission needs.
struct NhwcConv {
  ConvKind kind = ConvKind::Regular;
  int32_t input = -1; // NHWC
  Shape input_shape;  // NHWC
  DType dtype = DType::Float32;
  int32_t weight = -1; // OHWI (regular) or [1, KH, KW, C*M] (depthwise)
  int64_t kernel_h = 1, kernel_w = 1;
  int32_t bias = -1;   // always present (zeros when PyTorch has none)
  int64_t depth_multiplier = 1;
  ConvAttrs attrs;
  const QuantParams *input_quant = nullptr; // a quantized input's parameters (the PAD result keeps them)
};

// Emits (PAD +) CONV_2D or DEPTHWISE_CONV_2D writing the NHWC tensor `output`. SAME/VALID
// when they reproduce PyTorch's windows, an explicit PAD otherwise.
void emitNhwcConvolution(CircleEmitter &emit, const NhwcConv &conv, int32_t output, const std::string &base);

// The bias operand: the node's bias cast to `dtype`, or zeros of [channels].
int32_t convBias(CircleEmitter &emit, const Argument &bias, DType dtype, int64_t channels, const std::string &base);

// The weight in another layout: a zero-copy view of a constant, else a TRANSPOSE.
int32_t permutedWeight(CircleEmitter &emit, const Value *weight, const std::vector<int64_t> &perm,
                       const std::string &suffix, const std::string &base);

} // namespace tico::lowering
