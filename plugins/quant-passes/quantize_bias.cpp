// quantize-bias (the original's QuantizeBias): the float bias of a linear or circle convolution
// whose input, weight and result are quantized becomes an integer constant in the
// accumulator's scale, as the quantized FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D kernels
// read it:
//
//   scale[c] = input_scale * weight_scale[c],  zero point 0,  q[c] = round(bias[c] / scale[c])
//
// int32 for 8-bit activations, int64 for int16 ones (the original's rule); per channel (axis 0)
// when the weight is, else per tensor. A missing bias becomes zeros of that type, since some
// Circle runtimes refuse a convolution without one. Errors name the node and the tensor: a
// per-channel input, a weight quantized along another axis than the output channels, a bias
// that is not a float32 constant or has the wrong length, a value outside the integer type.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"
#include "tico/rewrite/driver.h"

#include <cmath>
#include <limits>

namespace tico::quant_passes {
namespace {

const std::string kPass = "quantize-bias";

int64_t staticDim(const Node &node, const Value *v, std::size_t i) {
  const Dim &d = v->shape()[i];
  if (d.isSymbolic())
    throw nodeError(kPass, node, "weight '" + v->name() + "' has a symbolic dimension " + std::to_string(i));
  return d.value();
}

template <typename T>
TensorData integerData(DType dtype, int64_t channels, const std::vector<int64_t> &values) {
  std::vector<T> v(values.begin(), values.end());
  return TensorData::fromVector(dtype, {channels}, v);
}

bool quantizeBias(Node &node, rewrite::Rewriter &rewriter) {
  if (node.numArgs() < 3 || !node.arg(0).isValue() || !node.arg(1).isValue())
    return false;
  Value *x = node.input(0);
  Value *w = node.input(1);
  Value *y = node.output();
  auto bias_index = argIndex(node, "bias");
  if (!bias_index || !x->isQuantized() || !w->isQuantized() || !y->isQuantized())
    return false;
  const Argument &bias_arg = node.arg(*bias_index);
  Value *bias = bias_arg.isValue() ? bias_arg.asValue() : nullptr;
  if (bias != nullptr && bias->isQuantized())
    return false;
  const QuantParams &qx = *x->quant();
  const QuantParams &qw = *w->quant();
  if (!qx.isPerTensor())
    throw nodeError(kPass, node, "input '" + x->name() + "' is quantized per channel; the quantized kernels take a "
                                     "per-tensor input");
  const bool depthwise = node.opId() == ops::circle::depthwise_conv2d_default ||
                         node.opId() == ops::circle::depthwise_conv2d_padding;
  const std::size_t channel_dim = depthwise ? 3 : 0;
  if (w->rank() <= static_cast<int64_t>(channel_dim))
    return false;
  const int64_t channels = staticDim(node, w, channel_dim);
  if (qw.isPerBlock() || (qw.axis && *qw.axis != static_cast<int64_t>(channel_dim)))
    throw nodeError(kPass, node, "weight '" + w->name() + "' is quantized " +
                                     (qw.isPerBlock() ? std::string("per block") : "along axis " + std::to_string(*qw.axis)) +
                                     "; the quantized kernel takes per-tensor weights or one scale per output channel "
                                     "(axis " + std::to_string(channel_dim) + ")");
  std::vector<double> values(static_cast<std::size_t>(channels), 0.0);
  if (bias != nullptr) {
    if (!bias->isConstant() || bias->dtype() != DType::Float32)
      throw nodeError(kPass, node, "bias '" + bias->name() + "' is not a float32 constant (" +
                                       std::string(dtypeName(bias->dtype())) +
                                       (bias->isConstant() ? "" : ", computed") + "); it cannot be quantized");
    auto elements = constantElements(*bias->constant());
    if (!elements || elements->size() != values.size())
      throw nodeError(kPass, node, "bias '" + bias->name() + "' has " + std::to_string(elements ? elements->size() : 0) +
                                       " elements for " + std::to_string(channels) + " output channels");
    values = *elements;
  }
  const DType dtype = x->dtype() == DType::Int16 ? DType::Int64 : DType::Int32;
  const double lo = dtype == DType::Int32 ? static_cast<double>(std::numeric_limits<int32_t>::min()) : -9.2e18;
  const double hi = dtype == DType::Int32 ? static_cast<double>(std::numeric_limits<int32_t>::max()) : 9.2e18;
  QuantParams q;
  std::vector<int64_t> codes;
  for (int64_t c = 0; c < channels; ++c) {
    const float ws = qw.isPerTensor() ? qw.scale[0] : qw.scale[static_cast<std::size_t>(c)];
    const float scale = static_cast<float>(static_cast<double>(qx.scale[0]) * static_cast<double>(ws));
    if (!(std::isfinite(scale) && scale > 0.0f))
      throw nodeError(kPass, node, "the bias scale of channel " + std::to_string(c) + " (" + number(qx.scale[0]) +
                                       " * " + number(ws) + ") is not a positive float32 number");
    if (qw.isPerTensor() ? c == 0 : true)
      q.scale.push_back(scale);
    const double code = std::round(values[static_cast<std::size_t>(c)] / static_cast<double>(scale));
    if (!(code >= lo && code <= hi))
      throw nodeError(kPass, node, "bias " + (bias ? "'" + bias->name() + "'" : std::string("")) + " channel " +
                                       std::to_string(c) + " = " + number(values[static_cast<std::size_t>(c)]) +
                                       " is outside " + std::string(dtypeName(dtype)) + " at scale " + number(scale));
    codes.push_back(static_cast<int64_t>(code));
  }
  q.zero_point.assign(q.scale.size(), 0);
  if (!qw.isPerTensor())
    q.axis = 0;
  auto data = std::make_shared<const TensorData>(dtype == DType::Int32 ? integerData<int32_t>(dtype, channels, codes)
                                                                        : integerData<int64_t>(dtype, channels, codes));
  Value *quantized = rewriter.graph().addConstant(bias ? bias->name() + "_quantized" : node.name() + "_bias", data);
  quantized->setQuant(std::move(q));
  rewriter.setArg(&node, *bias_index, Argument::value(quantized));
  return true;
}

} // namespace

void registerQuantizeBias(Registrar &r) {
  rewrite::DriverConfig config;
  config.traversal = rewrite::Traversal::Sweep;
  r.addPass(rewrite::patternPassSpec(
      kPass, "Float bias of a quantized linear / convolution -> int32 (8-bit input) or int64 (int16 input) (QuantizeBias)",
      quantizedComputeRoots(), quantizeBias, config));
}

} // namespace tico::quant_passes
