// Quantized SOFTMAX over the last axis. Per row, with d = max code − code (0 ≤ d < 2^16):
//   e = round(2^31 · exp(−β · s_in · d))     from a table over d (256 or 65536 entries)
//   p = round(e · 2^31 / Σ e)                integer division, the probability in Q0.31
//   out = zp_out + p · (2^−31 / s_out)       fixed-point multiplier, then the type's range
// Only the table holds real arithmetic; the normalisation and output stage are integer.
#include "kernels/quantized/checks.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"

#include <algorithm>
#include <cmath>

namespace tico::interp {
namespace {

template <typename T> void softmaxRows(const Tensor &input, Tensor &out, double beta, const quant::QParams &in,
                                       const quant::QParams &outp) {
  const int64_t depth = input.rank() == 0 ? 1 : input.shape.back();
  const int64_t rows = depth == 0 ? 0 : input.numel() / depth;
  const int64_t span = int64_t{std::numeric_limits<T>::max()} - std::numeric_limits<T>::min() + 1;
  std::vector<int64_t> exps(static_cast<std::size_t>(span));
  for (int64_t d = 0; d < span; ++d)
    exps[static_cast<std::size_t>(d)] = std::llround(std::exp(-beta * in.scale[0] * static_cast<double>(d)) * 2147483648.0);
  const quant::Multiplier m = quant::quantizeMultiplier(1.0 / (2147483648.0 * outp.scale[0]), "softmax output");
  const int64_t lo = qmin(out.dtype), hi = qmax(out.dtype);
  const T *x = input.as<T>();
  std::vector<int64_t> codes(static_cast<std::size_t>(depth));
  for (int64_t r = 0; r < rows; ++r) {
    const T *row = x + r * depth;
    const int64_t top = *std::max_element(row, row + depth);
    int64_t sum = 0; // at most depth · 2^31
    for (int64_t i = 0; i < depth; ++i)
      sum += exps[static_cast<std::size_t>(top - row[i])];
    for (int64_t i = 0; i < depth; ++i) {
      const int64_t e = exps[static_cast<std::size_t>(top - row[i])];
      const auto p = static_cast<int64_t>(((static_cast<__int128>(e) << 31) + sum / 2) / sum);
      codes[static_cast<std::size_t>(i)] = std::clamp(outp.zero_point[0] + quant::multiplyByQuantizedMultiplier64(p, m), lo, hi);
    }
    quant::storeCodes(codes.data(), depth, out, r * depth);
  }
}

void runQuantizedSoftmax(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const double beta = ctx.options<circle::SoftmaxOptionsT>().beta;
  check(std::isfinite(beta) && beta >= 0.0, "softmax beta " + std::to_string(beta) + " is not a finite non-negative number");
  const quant::QParams in = quant::perTensorQParams(ctx.inputTensor(0), "input");
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  Tensor &out = ctx.allocateOutput(0, input.shape);
  switch (input.dtype) {
  case DType::UInt8: softmaxRows<uint8_t>(input, out, beta, in, outp); break;
  case DType::Int8: softmaxRows<int8_t>(input, out, beta, in, outp); break;
  case DType::Int16: softmaxRows<int16_t>(input, out, beta, in, outp); break;
  default: throw Error("quantized SOFTMAX needs uint8, int8 or int16, got " + dtypeString(input.dtype));
  }
}

std::string checkQuantizedSoftmax(const OpSignature &op) { return quant::checkPerTensorCodes(op, {0}); }

} // namespace

void registerQuantizedSoftmax(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::SOFTMAX, runQuantizedSoftmax, checkQuantizedSoftmax);
}

} // namespace tico::interp
