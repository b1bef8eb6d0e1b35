// Quantized MEAN over a set of axes (keep_dims supported): the codes minus the input zero
// point are summed in int64, and the sum is scaled by s_in / (count · s_out) with one
// fixed-point multiplier before the output zero point is added and the type's range applied.
#include "kernels/quantized/checks.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/reduce_rows.h"

#include <algorithm>

namespace tico::interp {
namespace {

template <typename T> void meanRows(const ReductionLayout &layout, int32_t zero, quant::Multiplier m, int64_t out_zero,
                                    int64_t lo, int64_t hi, Tensor &out) {
  const T *rows = layout.rows.as<T>();
  std::vector<int64_t> codes(static_cast<std::size_t>(layout.outer));
  for (int64_t r = 0; r < layout.outer; ++r) {
    int64_t sum = 0;
    for (int64_t i = 0; i < layout.inner; ++i)
      sum += static_cast<int32_t>(rows[r * layout.inner + i]) - zero;
    codes[static_cast<std::size_t>(r)] = std::clamp(out_zero + quant::multiplyByQuantizedMultiplier64(sum, m), lo, hi);
  }
  quant::storeCodes(codes.data(), layout.outer, out, 0);
}

void runQuantizedMean(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> axes = integerValues(ctx.input(1));
  const bool keep_dims = ctx.options<circle::ReducerOptionsT>().keep_dims;
  const ReductionLayout layout = reductionLayout(input, axes);
  check(layout.inner > 0, "MEAN over an empty set of elements (input " + shapeString(input.shape) + ")");
  const quant::QParams in = quant::perTensorQParams(ctx.inputTensor(0), "input");
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  const quant::Multiplier m =
      quant::quantizeMultiplier(in.scale[0] / (static_cast<double>(layout.inner) * outp.scale[0]), "mean");
  Tensor &out = ctx.allocateOutput(0, keep_dims ? layout.kept_dims_shape : layout.kept_shape);
  const int64_t lo = qmin(out.dtype), hi = qmax(out.dtype);
  const auto zero = static_cast<int32_t>(in.zero_point[0]);
  switch (input.dtype) {
  case DType::UInt8: meanRows<uint8_t>(layout, zero, m, outp.zero_point[0], lo, hi, out); break;
  case DType::Int8: meanRows<int8_t>(layout, zero, m, outp.zero_point[0], lo, hi, out); break;
  case DType::Int16: meanRows<int16_t>(layout, zero, m, outp.zero_point[0], lo, hi, out); break;
  default: throw Error("quantized MEAN needs uint8, int8 or int16, got " + dtypeString(input.dtype));
  }
}

std::string checkQuantizedMean(const OpSignature &op) { return quant::checkPerTensorCodes(op, {0}); }

} // namespace

void registerQuantizedMean(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::MEAN, runQuantizedMean, checkQuantizedMean);
}

} // namespace tico::interp
