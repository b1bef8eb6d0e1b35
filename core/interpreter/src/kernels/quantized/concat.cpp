// Quantized CONCATENATION: an input whose scale and zero point equal the output's is copied
// code for code; any other is requantized on the way, zp_out + (q − zp_in) · (s_in / s_out)
// with a fixed-point multiplier, as a QUANTIZE would. The fused activation (a clamp) applies to
// every element in the quantized domain.
#include "kernels/quantized/checks.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"

#include <algorithm>

namespace tico::interp {
namespace {

void runQuantizedConcatenation(KernelContext &ctx) {
  const auto &options = ctx.options<circle::ConcatenationOptionsT>();
  check(ctx.inputCount() > 0, "CONCATENATION has no inputs");
  const Tensor &first = ctx.input(0);
  const int64_t axis = normalizeAxis(options.axis, first.rank());
  Shape shape = first.shape;
  shape[static_cast<std::size_t>(axis)] = 0;
  for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
    const Tensor &part = ctx.input(i);
    bool same = part.rank() == first.rank();
    for (int64_t d = 0; same && d < first.rank(); ++d)
      same = d == axis || part.dim(d) == first.dim(d);
    check(same, "input " + std::to_string(i) + " has shape " + shapeString(part.shape) +
                    ", which does not match input 0 " + shapeString(first.shape) + " outside axis " +
                    std::to_string(axis));
    shape[static_cast<std::size_t>(axis)] += part.dim(axis);
  }
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  Tensor &out = ctx.allocateOutput(0, std::move(shape));
  const quant::Range clamp =
      quant::activationRange(options.fused_activation_function, outp.scale[0], outp.zero_point[0], out.dtype);
  const int64_t outer = numElements(Shape(first.shape.begin(), first.shape.begin() + axis));
  const int64_t inner = numElements(Shape(first.shape.begin() + axis + 1, first.shape.end()));
  const int64_t out_block = out.dim(axis) * inner;

  int64_t column = 0; // element offset of this input's block inside an output row
  for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
    const Tensor &part = ctx.input(i);
    const quant::QParams inp = quant::perTensorQParams(ctx.inputTensor(i), "input " + std::to_string(i));
    const quant::Multiplier m = quant::quantizeMultiplier(inp.scale[0] / outp.scale[0], "requantization");
    const bool copy = quant::sameQParams(ctx.inputTensor(i), ctx.outputTensor(0));
    const int64_t block = part.dim(axis) * inner;
    std::vector<int64_t> codes(static_cast<std::size_t>(block));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < block; ++k) {
        const int64_t q = integerAt(part, o * block + k);
        const int64_t v = copy ? q
                               : outp.zero_point[0] + quant::multiplyByQuantizedMultiplier(
                                                          static_cast<int32_t>(q - inp.zero_point[0]), m);
        codes[static_cast<std::size_t>(k)] = std::clamp(v, clamp.lo, clamp.hi);
      }
      quant::storeCodes(codes.data(), block, out, o * out_block + column);
    }
    column += block;
  }
}

std::string checkQuantizedConcatenation(const OpSignature &op) {
  for (std::size_t i = 0; i < op.inputCount(); ++i)
    if (auto reason = quant::checkPerTensorCodes(op, {i}); !reason.empty())
      return reason;
  return "";
}

} // namespace

void registerQuantizedConcatenation(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::CONCATENATION, runQuantizedConcatenation, checkQuantizedConcatenation);
}

} // namespace tico::interp
