#include "kernels/quantized/linear.h"

#include "buffer_pool.h"
#include "parallel.h"
#include "quant/integer_gemm.h"

#include <cmath>

namespace tico::interp::quant {

LinearQuant prepareLinear(const KernelContext &ctx, const LinearSpec &spec) {
  const QParams in = perTensorQParams(ctx.inputTensor(spec.input), "input");
  const QParams w = qparamsOf(ctx.inputTensor(spec.weights), "weights");
  const QParams out = perTensorQParams(ctx.outputTensor(0), "output");
  const auto channels = static_cast<std::size_t>(spec.channels);
  if (w.perChannel()) {
    check(w.axis == spec.weight_channel_axis && w.channels() == channels,
          "weights '" + ctx.inputTensor(spec.weights).name + "' are quantized per channel on dim " +
              std::to_string(w.axis) + " with " + std::to_string(w.channels()) + " scales; this operator needs dim " +
              std::to_string(spec.weight_channel_axis) + " with " + std::to_string(channels));
  }
  LinearQuant q;
  q.input_zero = static_cast<int32_t>(in.zero_point[0]);
  q.output_zero = out.zero_point[0];
  q.wide = ctx.inputType(spec.input) == DType::Int16 || ctx.inputType(spec.weights) == DType::Int16;
  q.clamp = activationRange(spec.activation, out.scale[0], out.zero_point[0], ctx.outputType(0));
  q.weight_zero.resize(channels);
  q.multiplier.resize(channels);
  q.bias.assign(channels, 0);
  for (std::size_t c = 0; c < channels; ++c) {
    q.weight_zero[c] = static_cast<int32_t>(w.zeroPointAt(c));
    q.multiplier[c] = quantizeMultiplier(in.scale[0] * w.scaleAt(c) / out.scale[0], "output");
  }
  if (spec.bias >= 0 && ctx.present(static_cast<std::size_t>(spec.bias))) {
    const auto index = static_cast<std::size_t>(spec.bias);
    const Tensor &bias = ctx.input(index);
    check(bias.dtype == DType::Int32 || bias.dtype == DType::Int64,
          "bias must be int32 or int64 for quantized inputs, got " + dtypeString(bias.dtype));
    check(bias.numel() == spec.channels, "bias has " + std::to_string(bias.numel()) + " elements, the operator has " +
                                             std::to_string(spec.channels) + " output channels");
    const CircleTensor &tensor = ctx.inputTensor(index);
    if (isQuantizedTensor(tensor)) {
      // The integers are only meaningful in the accumulator's scale: refuse anything else
      // rather than add them in the wrong units.
      const QParams b = qparamsOf(tensor, "bias");
      for (std::size_t c = 0; c < channels; ++c) {
        const double expected = in.scale[0] * w.scaleAt(c);
        // The message is built only on failure: an LLM head has 262,144 channels, checked every run.
        if (!(std::fabs(b.scaleAt(c) - expected) <= 1e-4 * expected && b.zeroPointAt(c) == 0))
          throw Error("bias '" + tensor.name + "' channel " + std::to_string(c) + " has scale " +
                      std::to_string(b.scaleAt(c)) + " and zero point " + std::to_string(b.zeroPointAt(c)) +
                      "; input scale x weight scale is " + std::to_string(expected) + " with zero point 0");
      }
    }
    for (std::size_t c = 0; c < channels; ++c)
      q.bias[c] = integerAt(bias, static_cast<int64_t>(c));
  }
  return q;
}

std::string checkLinearTypes(const OpSignature &op, std::size_t weights, int bias, std::size_t input) {
  for (std::size_t i : {input, weights})
    if (auto reason = requireInputType(op, i, {DType::UInt8, DType::Int8, DType::Int16}); !reason.empty())
      return reason;
  const DType out = op.outputType(0);
  if (out != DType::UInt8 && out != DType::Int8 && out != DType::Int16)
    return "output is " + dtypeString(out) + " (quantized outputs are uint8, int8 or int16)";
  if (bias >= 0)
    if (auto reason = requireInputType(op, static_cast<std::size_t>(bias), {DType::Int32, DType::Int64}); !reason.empty())
      return reason;
  (void)perTensorQParams(op.inputTensor(input), "input");
  (void)qparamsOf(op.inputTensor(weights), "weights");
  (void)perTensorQParams(op.outputTensor(0), "output");
  return "";
}

void storeCodes(const int64_t *codes, int64_t count, Tensor &out, int64_t offset) {
  switch (out.dtype) {
  case DType::UInt8:
    for (int64_t i = 0; i < count; ++i)
      out.mut<uint8_t>()[offset + i] = static_cast<uint8_t>(codes[i]);
    break;
  case DType::Int8:
    for (int64_t i = 0; i < count; ++i)
      out.mut<int8_t>()[offset + i] = static_cast<int8_t>(codes[i]);
    break;
  case DType::Int16:
    for (int64_t i = 0; i < count; ++i)
      out.mut<int16_t>()[offset + i] = static_cast<int16_t>(codes[i]);
    break;
  default: throw Error("quantized output must be uint8, int8 or int16, got " + dtypeString(out.dtype));
  }
}

bool integerLinear(const Tensor &x, const Tensor &w, int64_t rows, int64_t units, int64_t depth, const LinearQuant &q,
                   std::vector<int64_t> &acc) {
  const bool x8 = x.dtype == DType::UInt8 || x.dtype == DType::Int8;
  const bool w8 = w.dtype == DType::UInt8 || w.dtype == DType::Int8;
  if (!x8 || !w8 || q.wide || rows <= 0 || units <= 0 || depth <= 0 || !integerGemmAvailable())
    return false;
  const auto count = [](int64_t a, int64_t b) { return static_cast<std::size_t>(a * b); };
  // Activations as uint8 (int8 codes + 128), weights as int8 (uint8 codes − 128).
  const int32_t x_zero = q.input_zero + (x.dtype == DType::Int8 ? 128 : 0);
  if (x_zero < 0 || x_zero > 255)
    return false; // not a uint8 offset: the loops handle it
  ScratchArray<uint8_t> shifted_x;
  const uint8_t *xu = x.as<uint8_t>();
  if (x.dtype == DType::Int8) {
    shifted_x = ScratchArray<uint8_t>(count(rows, depth));
    const int8_t *src = x.as<int8_t>();
    for (std::size_t i = 0; i < shifted_x.size(); ++i)
      shifted_x.data()[i] = static_cast<uint8_t>(static_cast<int32_t>(src[i]) + 128);
    xu = shifted_x.data();
  }
  ScratchArray<int8_t> shifted_w;
  const int8_t *ws = w.as<int8_t>();
  int32_t w_shift = 0;
  if (w.dtype == DType::UInt8) {
    shifted_w = ScratchArray<int8_t>(count(units, depth));
    const uint8_t *src = w.as<uint8_t>();
    for (std::size_t i = 0; i < shifted_w.size(); ++i)
      shifted_w.data()[i] = static_cast<int8_t>(static_cast<int32_t>(src[i]) - 128);
    ws = shifted_w.data();
    w_shift = 128;
  }
  ScratchArray<int32_t> product(count(rows, units));
  integerGemmU8S8(rows, units, depth, xu, depth, static_cast<uint8_t>(x_zero), ws, depth, product.data(), units);
  acc.resize(count(rows, units));
  parallelFor(rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, depth + units)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t row_sum = 0; // Σ_k (x − zx)
      for (int64_t k = 0; k < depth; ++k)
        row_sum += static_cast<int64_t>(xu[r * depth + k]) - x_zero;
      for (int64_t u = 0; u < units; ++u) {
        const std::size_t c = q.weight_zero.size() == 1 ? 0 : static_cast<std::size_t>(u); // per tensor or channel
        const int64_t w_zero = static_cast<int64_t>(q.weight_zero[c]) - w_shift;
        acc[static_cast<std::size_t>(r * units + u)] = product.data()[r * units + u] - w_zero * row_sum;
      }
    }
  });
  return true;
}

void storeLinearOutputs(const std::vector<int64_t> &acc, int64_t rows, int64_t units, const LinearQuant &q, Tensor &out,
                        int64_t first_row) {
  const bool per_tensor = q.multiplier.size() == 1;
  parallelFor(rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, units)), [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> codes(static_cast<std::size_t>(units));
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t u = 0; u < units; ++u)
        codes[static_cast<std::size_t>(u)] =
            q.output(acc[static_cast<std::size_t>(r * units + u)], per_tensor ? 0 : static_cast<std::size_t>(u));
      storeCodes(codes.data(), units, out, (first_row + r) * units);
    }
  });
}

} // namespace tico::interp::quant
