// QUANTIZE (float32 -> uint8/int8/int16 with the output tensor's scale and zero point, or a
// requantization uint8/int8/int16 -> uint8/int8/int16 between two sets of parameters) and
// DEQUANTIZE (uint8/int8/int16/int32 with the input's parameters, or float16 -> float32).
// Parameters are per tensor, or per channel along quantized_dimension. Rounding is half away
// from zero, as in TFLite. A requantization is integer-only, like on an NPU:
// q_out = zp_out + (q_in − zp_in) · M with M = s_in / s_out as a fixed-point multiplier.
#include "dispatch.h"
#include "half.h"
#include "parallel.h"
#include "kernels/registrations.h"
#include "quant/qparams.h"
#include "quant/requantize.h"

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

// Elements [begin, end) of a tensor with per-channel (or per-tensor) parameters, visited as runs
// of one channel: fn(first, last, channel). Per-tensor parameters are one run; per-channel ones
// change channel every `inner` elements. Finding the channel per element took two integer
// divisions each, most of these kernels' time.
template <typename Fn> void forEachChannelRun(const QuantParams &p, const Tensor &t, int64_t begin, int64_t end, Fn &&fn) {
  if (p.scale.size() <= 1) {
    fn(begin, end, std::size_t{0});
    return;
  }
  const auto channels = static_cast<int64_t>(p.scale.size());
  const int64_t inner = numElements(Shape(t.shape.begin() + p.axis + 1, t.shape.end()));
  for (int64_t i = begin; i < end;) {
    const int64_t last = std::min(end, (i / inner + 1) * inner);
    fn(i, last, static_cast<std::size_t>((i / inner) % channels));
    i = last;
  }
}

// Elements per thread below which a conversion stays on the calling thread.
constexpr int64_t kMinElementsPerThread = 1 << 15;

// The arithmetic is double precision per element, as before the loops were restructured: the
// codes must not change.
template <typename Q> void quantizeInto(const Tensor &input, const QuantParams &p, Tensor &out) {
  const float *x = input.as<float>();
  Q *q = out.mut<Q>();
  parallelFor(input.numel(), kMinElementsPerThread, [&](int64_t begin, int64_t end) {
    forEachChannelRun(p, input, begin, end, [&](int64_t first, int64_t last, std::size_t c) {
      const double scale = p.scale[c], zero_point = static_cast<double>(p.zero_point[c]);
      constexpr double lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
      for (int64_t i = first; i < last; ++i) {
        const double v = std::round(static_cast<double>(x[i]) / scale) + zero_point;
        q[i] = static_cast<Q>(std::clamp(std::isnan(v) ? 0.0 : v, lo, hi));
      }
    });
  });
}

template <typename Q> void dequantizeInto(const Tensor &input, const QuantParams &p, Tensor &out) {
  const Q *q = input.as<Q>();
  float *y = out.mut<float>();
  parallelFor(input.numel(), kMinElementsPerThread, [&](int64_t begin, int64_t end) {
    forEachChannelRun(p, input, begin, end, [&](int64_t first, int64_t last, std::size_t c) {
      const double scale = p.scale[c];
      const int64_t zero_point = p.zero_point[c];
      for (int64_t i = first; i < last; ++i)
        y[i] = static_cast<float>(static_cast<double>(static_cast<int64_t>(q[i]) - zero_point) * scale);
    });
  });
}

template <typename QIn, typename QOut>
void requantizeInto(const Tensor &input, const quant::QParams &in, const quant::QParams &out_params, Tensor &out) {
  quant::requantizeCodes(input.as<QIn>(), input.numel(), in, out_params, out.mut<QOut>(), "requantization");
}

void runRequantize(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const quant::QParams in = quant::perTensorQParams(ctx.inputTensor(0), "input");
  const quant::QParams out_params = quant::perTensorQParams(ctx.outputTensor(0), "output");
  Tensor &out = ctx.allocateOutput(0, input.shape);
  auto withOutput = [&](auto in_tag) {
    using QIn = typename decltype(in_tag)::type;
    switch (out.dtype) {
    case DType::UInt8: requantizeInto<QIn, uint8_t>(input, in, out_params, out); break;
    case DType::Int8: requantizeInto<QIn, int8_t>(input, in, out_params, out); break;
    case DType::Int16: requantizeInto<QIn, int16_t>(input, in, out_params, out); break;
    default: throw Error("QUANTIZE to " + dtypeString(out.dtype) + " is not supported");
    }
  };
  switch (input.dtype) {
  case DType::UInt8: withOutput(TypeTag<uint8_t>{}); break;
  case DType::Int8: withOutput(TypeTag<int8_t>{}); break;
  case DType::Int16: withOutput(TypeTag<int16_t>{}); break;
  default: throw Error("QUANTIZE from " + dtypeString(input.dtype) + " is not supported");
  }
}

void runQuantize(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  if (input.dtype != DType::Float32)
    return runRequantize(ctx);
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
  if (auto reason = requireInputType(op, 0, {DType::Float32, DType::UInt8, DType::Int8, DType::Int16}); !reason.empty())
    return reason;
  const DType out = op.outputType(0);
  if (out != DType::UInt8 && out != DType::Int8 && out != DType::Int16)
    return "output is " + dtypeString(out);
  // Parameters are validated here, before anything runs.
  if (op.inputType(0) == DType::Float32) {
    (void)quant::qparamsOf(op.outputTensor(0), "output");
  } else {
    (void)quant::perTensorQParams(op.inputTensor(0), "input");
    (void)quant::perTensorQParams(op.outputTensor(0), "output");
  }
  return "";
}

std::string checkDequantize(const OpSignature &op) {
  return requireInputType(op, 0, {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Float16});
}

} // namespace

void registerQuantizeKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::QUANTIZE, runQuantize, checkQuantize);
  table.add(circle::BuiltinOperator::DEQUANTIZE, runDequantize, checkDequantize);
  // Both read or write quantized tensors by nature: they are their own quantized kernels.
  table.addQuantized(circle::BuiltinOperator::QUANTIZE, runQuantize, checkQuantize);
  table.addQuantized(circle::BuiltinOperator::DEQUANTIZE, runDequantize, checkDequantize);
}

} // namespace tico::interp
