// Quantized GATHER. With one scale and zero point on both sides the codes are copied (the plain
// kernel). Otherwise every gathered slice is requantized to the output's parameters with the
// parameters of the table row it came from: an embedding table quantized per row (per channel
// on the gathered axis, the original converter's uint8 embeddings) feeding an int16 activation.
// Fixed point as QUANTIZE's requantization: y = zp_out + round((q - zp_row) * s_row / s_out).
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/registrations.h"
#include "quant/fixed_point.h"
#include "quant/qparams.h"

#include <algorithm>

namespace tico::interp {
namespace {

void runQuantizedGather(KernelContext &ctx) {
  const quant::QParams table = quant::qparamsOf(ctx.inputTensor(0), "table");
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  const Tensor &params = ctx.input(0);
  const Tensor &indices = ctx.input(1);
  check(indices.dtype == DType::Int32 || indices.dtype == DType::Int64,
        "indices must be int32 or int64, got " + dtypeString(indices.dtype));
  const auto &options = ctx.options<circle::GatherOptionsT>();
  const int64_t axis = normalizeAxis(options.axis, params.rank());
  check(options.batch_dims == 0, "a requantizing GATHER takes batch_dims 0, got " + std::to_string(options.batch_dims));
  Shape shape(params.shape.begin(), params.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), params.shape.begin() + axis + 1, params.shape.end());
  Tensor &out = ctx.allocateOutput(0, std::move(shape));

  const int64_t outer = numElements(Shape(params.shape.begin(), params.shape.begin() + axis));
  const int64_t axis_size = params.dim(axis);
  const int64_t inner = numElements(Shape(params.shape.begin() + axis + 1, params.shape.end()));
  const int64_t picks = indices.numel();
  // One multiplier per table row (one in all when the table is per tensor).
  std::vector<quant::Multiplier> multipliers;
  for (std::size_t c = 0; c < table.channels(); ++c)
    multipliers.push_back(quant::quantizeMultiplier(table.scale[c] / outp.scale[0], "gather requantization"));
  const int64_t lo = qmin(out.dtype), hi = qmax(out.dtype);
  std::vector<int64_t> codes(static_cast<std::size_t>(inner));
  int64_t written = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t p = 0; p < picks; ++p) {
      const int64_t index = integerAt(indices, p);
      check(index >= 0 && index < axis_size, "index " + std::to_string(index) + " is out of range for dim " +
                                                 std::to_string(axis) + " of size " + std::to_string(axis_size));
      const auto c = static_cast<std::size_t>(table.perChannel() ? index : 0);
      const int64_t zp = table.zeroPointAt(c);
      const int64_t base = (o * axis_size + index) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const auto diff = static_cast<int32_t>(integerAt(params, base + i) - zp);
        codes[static_cast<std::size_t>(i)] =
            std::clamp(outp.zero_point[0] + quant::multiplyByQuantizedMultiplier(diff, multipliers[c]), lo, hi);
      }
      quant::storeCodes(codes.data(), inner, out, written);
      written += inner;
    }
}

void runGather(KernelContext &ctx) {
  const CircleTensor &table = ctx.inputTensor(0), &output = ctx.outputTensor(0);
  if (ctx.inputType(0) == ctx.outputType(0) && quant::qparamsOf(table, "table").axis < 0 &&
      quant::sameQParams(table, output)) {
    kernelTable().find(static_cast<int32_t>(circle::BuiltinOperator::GATHER))->run(ctx);
    return;
  }
  runQuantizedGather(ctx);
}

std::string checkQuantizedGather(const OpSignature &op) {
  for (DType t : {op.inputType(0), op.outputType(0)})
    if (t != DType::UInt8 && t != DType::Int8 && t != DType::Int16)
      return "table and output must be uint8, int8 or int16, got " + dtypeString(op.inputType(0)) + " and " +
             dtypeString(op.outputType(0));
  const quant::QParams table = quant::qparamsOf(op.inputTensor(0), "table");
  (void)quant::perTensorQParams(op.outputTensor(0), "output");
  if (table.perChannel()) {
    const auto rank = static_cast<int64_t>(op.inputTensor(0).shape.size());
    int64_t axis = op.options<circle::GatherOptionsT>().axis;
    if (axis < 0)
      axis += rank;
    if (table.axis != axis)
      return "table '" + op.inputTensor(0).name + "' is quantized per channel on dim " + std::to_string(table.axis) +
             " but gathered on dim " + std::to_string(axis) + " (per-row parameters must follow the gathered rows)";
  }
  return "";
}

} // namespace

void registerQuantizedGather(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::GATHER, runGather, checkQuantizedGather);
}

} // namespace tico::interp
