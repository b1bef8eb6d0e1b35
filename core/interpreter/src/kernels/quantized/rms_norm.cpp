// Quantized RMS_NORM (Circle extension): x and the output carry integer codes with one scale
// and zero point each; gamma is integer codes (per tensor, or per channel along the last axis)
// or float32. Per row the sum of squared codes is exact in int64, and the normaliser
//   inv = 1 / sqrt(s_x^2 * sum((q - zp_x)^2) / D + epsilon)
// is computed once in double (like the float kernel's mean of squares); each element is then
//   y = zp_out + round((q - zp_x) * s_x * inv * gamma / s_out), clamped to the output type,
// one rounding per element. The original converter's int16 decoders use this operator.
#include "kernels/quantized/checks.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/registrations.h"
#include "quant/qparams.h"

#include <algorithm>
#include <cmath>

namespace tico::interp {
namespace {

// gamma's real values, one per element of the last axis (or a single one).
std::vector<double> realGamma(const KernelContext &ctx, const Tensor &gamma) {
  std::vector<double> g(static_cast<std::size_t>(gamma.numel()));
  if (gamma.dtype == DType::Float32) {
    for (std::size_t i = 0; i < g.size(); ++i)
      g[i] = gamma.as<float>()[i];
    return g;
  }
  const quant::QParams q = quant::qparamsOf(ctx.inputTensor(1), "gamma");
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = q.scaleAt(i) * static_cast<double>(integerAt(gamma, static_cast<int64_t>(i)) - q.zeroPointAt(i));
  return g;
}

void runQuantizedRmsNorm(KernelContext &ctx) {
  const double epsilon = ctx.options<circle::RmsNormOptionsT>().epsilon;
  const Tensor &input = ctx.input(0);
  const Tensor &gamma = ctx.input(1);
  check(input.rank() >= 1, "input must have rank >= 1");
  const int64_t depth = input.shape.back();
  check(gamma.numel() == depth || gamma.numel() == 1,
        "gamma " + shapeString(gamma.shape) + " must have " + std::to_string(depth) +
            " elements (the input's last dim) or 1");
  const quant::QParams in = quant::perTensorQParams(ctx.inputTensor(0), "input");
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  const std::vector<double> g = realGamma(ctx, gamma);
  Tensor &out = ctx.allocateOutput(0, input.shape);
  if (depth == 0)
    return;
  const int64_t rows = input.numel() / depth;
  const double s_x = in.scale[0], s_out = outp.scale[0];
  const int64_t zp_x = in.zero_point[0], zp_out = outp.zero_point[0];
  const int64_t lo = qmin(out.dtype), hi = qmax(out.dtype);
  std::vector<int64_t> centred(static_cast<std::size_t>(depth)), codes(static_cast<std::size_t>(depth));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t squares = 0; // at most depth * 2^32 for 16-bit codes
    for (int64_t i = 0; i < depth; ++i) {
      const int64_t c = integerAt(input, r * depth + i) - zp_x;
      centred[static_cast<std::size_t>(i)] = c;
      squares += c * c;
    }
    const double inv = 1.0 / std::sqrt(s_x * s_x * static_cast<double>(squares) / static_cast<double>(depth) + epsilon);
    const double factor = s_x * inv / s_out;
    for (int64_t i = 0; i < depth; ++i) {
      const double y = static_cast<double>(centred[static_cast<std::size_t>(i)]) * factor *
                       g[g.size() == 1 ? 0 : static_cast<std::size_t>(i)];
      codes[static_cast<std::size_t>(i)] = std::clamp<int64_t>(zp_out + std::llround(y), lo, hi);
    }
    quant::storeCodes(codes.data(), depth, out, r * depth);
  }
}

std::string checkQuantizedRmsNorm(const OpSignature &op) {
  if (auto reason = quant::checkPerTensorCodes(op, {0}); !reason.empty())
    return reason;
  const DType g = op.inputType(1);
  if (g == DType::Float32)
    return "";
  if (g != DType::UInt8 && g != DType::Int8 && g != DType::Int16)
    return "gamma is " + dtypeString(g) + " (float32 or uint8/int8/int16 codes)";
  const quant::QParams q = quant::qparamsOf(op.inputTensor(1), "gamma");
  if (q.perChannel() && q.axis != static_cast<int64_t>(op.inputTensor(1).shape.size()) - 1)
    return "gamma is quantized per channel on dim " + std::to_string(q.axis) + ", not its last";
  return "";
}

} // namespace

void registerQuantizedRmsNorm(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::RMS_NORM, runQuantizedRmsNorm, checkQuantizedRmsNorm);
}

} // namespace tico::interp
