// QUANTIZE (float32 -> uint8/int8/int16 with the output tensor's scale and zero point) and
// DEQUANTIZE (uint8/int8/int16/int32 with the input's parameters, or float16 -> float32).
// Parameters are per tensor, or per channel along quantized_dimension. Rounding is half away
// from zero, as in TFLite. Quantized arithmetic kernels are not part of this interpreter yet.
#include "half.h"
#include "kernels/registrations.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tico::interp {
namespace {

struct QuantParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int64_t axis = 0;
};

QuantParams paramsOf(const CircleTensor &tensor, const Tensor &value, const char *which) {
  const auto &q = tensor.quantization;
  check(q != nullptr && !q->scale.empty(), std::string("the ") + which + " tensor '" + tensor.name +
                                               "' has no quantization scale");
  QuantParams p;
  p.scale = q->scale;
  p.zero_point = q->zero_point.empty() ? std::vector<int64_t>(q->scale.size(), 0) : q->zero_point;
  check(p.zero_point.size() == p.scale.size(), "quantization of '" + tensor.name + "' has " +
                                                   std::to_string(p.scale.size()) + " scales and " +
                                                   std::to_string(p.zero_point.size()) + " zero points");
  if (p.scale.size() > 1) {
    p.axis = normalizeAxis(q->quantized_dimension, value.rank(), "quantized_dimension");
    check(value.dim(p.axis) == static_cast<int64_t>(p.scale.size()),
          "quantization of '" + tensor.name + "' has " + std::to_string(p.scale.size()) + " scales for dim " +
              std::to_string(p.axis) + " of size " + std::to_string(value.dim(p.axis)));
  }
  return p;
}

// Channel of element i for per-channel parameters (0 for per-tensor ones).
struct ChannelOf {
  int64_t inner = 1, channels = 1;
  ChannelOf(const QuantParams &p, const Tensor &t) {
    if (p.scale.size() > 1) {
      channels = static_cast<int64_t>(p.scale.size());
      inner = numElements(Shape(t.shape.begin() + p.axis + 1, t.shape.end()));
    }
  }
  std::size_t operator()(int64_t i) const { return static_cast<std::size_t>((i / inner) % channels); }
};

template <typename Q> void quantizeInto(const Tensor &input, const QuantParams &p, Tensor &out) {
  const ChannelOf channel(p, input);
  const float *x = input.as<float>();
  Q *q = out.mut<Q>();
  for (int64_t i = 0; i < input.numel(); ++i) {
    const std::size_t c = channel(i);
    const double v = std::round(static_cast<double>(x[i]) / p.scale[c]) + static_cast<double>(p.zero_point[c]);
    const double clamped = std::clamp(std::isnan(v) ? 0.0 : v, static_cast<double>(std::numeric_limits<Q>::min()),
                                      static_cast<double>(std::numeric_limits<Q>::max()));
    q[i] = static_cast<Q>(clamped);
  }
}

template <typename Q> void dequantizeInto(const Tensor &input, const QuantParams &p, Tensor &out) {
  const ChannelOf channel(p, input);
  const Q *q = input.as<Q>();
  float *y = out.mut<float>();
  for (int64_t i = 0; i < input.numel(); ++i) {
    const std::size_t c = channel(i);
    y[i] = static_cast<float>(static_cast<double>(static_cast<int64_t>(q[i]) - p.zero_point[c]) * p.scale[c]);
  }
}

void runQuantize(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  check(input.dtype == DType::Float32, "QUANTIZE needs a float32 input, got " + dtypeString(input.dtype) +
                                           " (requantization is not supported)");
  const DType target = ctx.outputType(0);
  Tensor &out = ctx.allocateOutput(0, target, input.shape);
  const QuantParams p = paramsOf(ctx.outputTensor(0), input, "output");
  switch (target) {
  case DType::UInt8: quantizeInto<uint8_t>(input, p, out); break;
  case DType::Int8: quantizeInto<int8_t>(input, p, out); break;
  case DType::Int16: quantizeInto<int16_t>(input, p, out); break;
  default: throw Error("QUANTIZE to " + dtypeString(target) + " is not supported");
  }
}

void runDequantize(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  Tensor &out = ctx.allocateOutput(0, DType::Float32, input.shape);
  if (input.dtype == DType::Float16) {
    for (int64_t i = 0; i < input.numel(); ++i)
      out.mut<float>()[i] = halfToFloat(input.as<uint16_t>()[i]);
    return;
  }
  const QuantParams p = paramsOf(ctx.inputTensor(0), input, "input");
  switch (input.dtype) {
  case DType::UInt8: dequantizeInto<uint8_t>(input, p, out); break;
  case DType::Int8: dequantizeInto<int8_t>(input, p, out); break;
  case DType::Int16: dequantizeInto<int16_t>(input, p, out); break;
  case DType::Int32: dequantizeInto<int32_t>(input, p, out); break;
  default: throw Error("DEQUANTIZE from " + dtypeString(input.dtype) + " is not supported");
  }
}

std::string checkQuantize(const OpSignature &op) {
  if (auto reason = requireInputType(op, 0, {DType::Float32}); !reason.empty())
    return reason;
  const DType out = op.outputType(0);
  return out == DType::UInt8 || out == DType::Int8 || out == DType::Int16 ? "" : "output is " + dtypeString(out);
}

std::string checkDequantize(const OpSignature &op) {
  return requireInputType(op, 0, {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Float16});
}

} // namespace

void registerQuantizeKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::QUANTIZE, runQuantize, checkQuantize);
  table.add(circle::BuiltinOperator::DEQUANTIZE, runDequantize, checkDequantize);
}

} // namespace tico::interp
