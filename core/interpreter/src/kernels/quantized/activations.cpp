// Quantized LOGISTIC and TANH by lookup table: one entry per input code (256 for 8-bit inputs,
// 65536 for int16), each the exact real function of the dequantized code, rounded half away
// from zero to the output's grid and clamped. A table is exact to half an output step, costs
// one load per element, and is how 8-bit NPUs commonly implement these functions; it is built
// per run from the operator's parameters (65536 evaluations at most).
//
// Quantized NEG (rotate_half of rotary embeddings): the same requantization of the negated
// difference, q_out = zp_out + (zp_in − q_in) · M, clamped to the output type; with equal
// parameters and zero point 0 that is −q_in (the one code −min saturates), with the mirrored
// zero point the converter gives an unsigned result it is exact.
//
// Quantized RELU (what the original converter writes for a relu between two quantized tensors,
// each with its own parameters): the requantization QUANTIZE does, q_out = zp_out + (q_in −
// zp_in) · M with M = s_in / s_out in fixed point, clamped below at the output zero point (real
// 0) and above at the type's maximum; input and output of one type.
#include "kernels/quantized/checks.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "quant/requantize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tico::interp {
namespace {

template <typename T> void mapThroughTable(const Tensor &input, Tensor &out, const quant::QParams &in,
                                           const quant::QParams &outp, double (*f)(double)) {
  const int64_t first = std::numeric_limits<T>::min();
  const int64_t entries = int64_t{std::numeric_limits<T>::max()} - first + 1;
  const int64_t lo = qmin(out.dtype), hi = qmax(out.dtype);
  std::vector<int64_t> table(static_cast<std::size_t>(entries));
  for (int64_t k = 0; k < entries; ++k) {
    const double real = in.scale[0] * static_cast<double>(first + k - in.zero_point[0]);
    const double code = std::round(f(real) / outp.scale[0]) + static_cast<double>(outp.zero_point[0]);
    table[static_cast<std::size_t>(k)] = static_cast<int64_t>(std::clamp(code, static_cast<double>(lo), static_cast<double>(hi)));
  }
  const T *x = input.as<T>();
  std::vector<int64_t> codes(static_cast<std::size_t>(input.numel()));
  for (int64_t i = 0; i < input.numel(); ++i)
    codes[static_cast<std::size_t>(i)] = table[static_cast<std::size_t>(int64_t{x[i]} - first)];
  quant::storeCodes(codes.data(), input.numel(), out, 0);
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double hyperbolicTangent(double x) { return std::tanh(x); }

template <double (*kFunction)(double)> void runTable(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const quant::QParams in = quant::perTensorQParams(ctx.inputTensor(0), "input");
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  Tensor &out = ctx.allocateOutput(0, input.shape);
  switch (input.dtype) {
  case DType::UInt8: mapThroughTable<uint8_t>(input, out, in, outp, kFunction); break;
  case DType::Int8: mapThroughTable<int8_t>(input, out, in, outp, kFunction); break;
  case DType::Int16: mapThroughTable<int16_t>(input, out, in, outp, kFunction); break;
  default: throw Error("quantized input must be uint8, int8 or int16, got " + dtypeString(input.dtype));
  }
}

std::string checkTable(const OpSignature &op) { return quant::checkPerTensorCodes(op, {0}); }

// RELU (kNeg false: floor at the output's zero point) and NEG (kNeg true: negated, no floor).
template <bool kNeg, typename T>
void requantizeInto(const Tensor &input, Tensor &out, const quant::QParams &in, const quant::QParams &outp) {
  quant::requantizeCodes<T, T, kNeg ? -1 : 1>(input.as<T>(), input.numel(), in, outp, out.mut<T>(),
                                             kNeg ? "NEG requantization" : "RELU requantization",
                                             kNeg ? int64_t{std::numeric_limits<T>::min()} : outp.zero_point[0]);
}

template <bool kNeg> void runRequantizing(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const quant::QParams in = quant::perTensorQParams(ctx.inputTensor(0), "input");
  const quant::QParams outp = quant::perTensorQParams(ctx.outputTensor(0), "output");
  Tensor &out = ctx.allocateOutput(0, input.shape);
  switch (input.dtype) {
  case DType::UInt8: requantizeInto<kNeg, uint8_t>(input, out, in, outp); break;
  case DType::Int8: requantizeInto<kNeg, int8_t>(input, out, in, outp); break;
  case DType::Int16: requantizeInto<kNeg, int16_t>(input, out, in, outp); break;
  default: throw Error("quantized input must be uint8, int8 or int16, got " + dtypeString(input.dtype));
  }
}

std::string checkSameCodeType(const OpSignature &op) {
  if (auto reason = quant::checkPerTensorCodes(op, {0}); !reason.empty())
    return reason;
  if (op.inputType(0) != op.outputType(0))
    return "input " + dtypeString(op.inputType(0)) + " and output " + dtypeString(op.outputType(0)) +
           " differ (the operator keeps the type)";
  return "";
}

} // namespace

void registerQuantizedActivations(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::LOGISTIC, runTable<logistic>, checkTable);
  table.addQuantized(circle::BuiltinOperator::TANH, runTable<hyperbolicTangent>, checkTable);
  table.addQuantized(circle::BuiltinOperator::RELU, runRequantizing<false>, checkSameCodeType);
  table.addQuantized(circle::BuiltinOperator::NEG, runRequantizing<true>, checkSameCodeType);
}

} // namespace tico::interp
