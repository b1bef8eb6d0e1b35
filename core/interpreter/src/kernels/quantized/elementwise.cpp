// Quantized ADD, SUB and MUL with NumPy broadcasting, integer-only as in TFLite's reference
// kernels.
//
// ADD/SUB: both operands are brought to a common scale 2·max(s_a, s_b) with extra headroom
// bits (x − zp) · 2^L (L = 20 for 8-bit operands, 15 for int16), each rescaled by its own
// fixed-point multiplier s/(2·max), added or subtracted, then rescaled to the output by
// 2·max / (2^L · s_out). MUL: (a − zp_a)(b − zp_b) · (s_a·s_b/s_out). Both end with the output
// zero point and the fused activation's clamp in the quantized domain.
#include "broadcast.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"

#include <algorithm>

namespace tico::interp {
namespace {

enum class Arith { Add, Sub, Mul };

struct BinaryQuant {
  int32_t a_zero = 0, b_zero = 0;
  int64_t out_zero = 0;
  int left_shift = 0;
  quant::Multiplier a_mult, b_mult, out_mult;
  quant::Range clamp;
  bool wide = false;
};

BinaryQuant prepareBinary(const KernelContext &ctx, Arith kind, circle::ActivationFunctionType activation) {
  const quant::QParams a = quant::perTensorQParams(ctx.inputTensor(0), "input 0");
  const quant::QParams b = quant::perTensorQParams(ctx.inputTensor(1), "input 1");
  const quant::QParams out = quant::perTensorQParams(ctx.outputTensor(0), "output");
  BinaryQuant q;
  q.a_zero = static_cast<int32_t>(a.zero_point[0]);
  q.b_zero = static_cast<int32_t>(b.zero_point[0]);
  q.out_zero = out.zero_point[0];
  q.wide = ctx.inputType(0) == DType::Int16;
  q.clamp = quant::activationRange(activation, out.scale[0], out.zero_point[0], ctx.outputType(0));
  if (kind == Arith::Mul) {
    q.out_mult = quant::quantizeMultiplier(a.scale[0] * b.scale[0] / out.scale[0], "output");
  } else {
    q.left_shift = q.wide ? 15 : 20;
    const double twice_max = 2.0 * std::max(a.scale[0], b.scale[0]);
    q.a_mult = quant::quantizeMultiplier(a.scale[0] / twice_max, "input 0");
    q.b_mult = quant::quantizeMultiplier(b.scale[0] / twice_max, "input 1");
    q.out_mult = quant::quantizeMultiplier(twice_max / (static_cast<double>(int64_t{1} << q.left_shift) * out.scale[0]),
                                           "output");
  }
  return q;
}

int32_t saturate32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
}

template <Arith kKind> int64_t combine(const BinaryQuant &q, int32_t a, int32_t b) {
  int64_t raw;
  if constexpr (kKind == Arith::Mul) {
    const int64_t product = static_cast<int64_t>(a - q.a_zero) * (b - q.b_zero);
    raw = q.wide ? quant::multiplyByQuantizedMultiplier64(product, q.out_mult)
                 : quant::multiplyByQuantizedMultiplier(saturate32(product), q.out_mult);
  } else {
    const int32_t x = quant::multiplyByQuantizedMultiplier(saturate32(int64_t{a - q.a_zero} << q.left_shift), q.a_mult);
    const int32_t y = quant::multiplyByQuantizedMultiplier(saturate32(int64_t{b - q.b_zero} << q.left_shift), q.b_mult);
    const int64_t sum = kKind == Arith::Add ? int64_t{x} + y : int64_t{x} - y;
    raw = quant::multiplyByQuantizedMultiplier(saturate32(sum), q.out_mult);
  }
  return std::clamp(q.out_zero + raw, q.clamp.lo, q.clamp.hi);
}

template <Arith kKind, typename T> void runTyped(const Tensor &a, const Tensor &b, Tensor &out, const BinaryQuant &q) {
  const auto plan = makeBroadcastPlan<2>(out.shape, {&a.shape, &b.shape});
  const T *pa = a.as<T>();
  const T *pb = b.as<T>();
  std::vector<int64_t> codes;
  int64_t written = 0;
  forEachRun(plan, [&](const std::array<int64_t, 2> &offset, const std::array<int64_t, 2> &stride, int64_t n) {
    codes.resize(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      codes[static_cast<std::size_t>(i)] =
          combine<kKind>(q, pa[offset[0] + i * stride[0]], pb[offset[1] + i * stride[1]]);
    quant::storeCodes(codes.data(), n, out, written);
    written += n;
  });
}

template <Arith kKind> void runQuantizedBinary(KernelContext &ctx) {
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  check(a.dtype == b.dtype, "operands are " + dtypeString(a.dtype) + " and " + dtypeString(b.dtype) +
                                " (quantized operands must have one type)");
  circle::ActivationFunctionType activation = circle::ActivationFunctionType::NONE;
  if constexpr (kKind == Arith::Add)
    activation = ctx.options<circle::AddOptionsT>().fused_activation_function;
  else if constexpr (kKind == Arith::Sub)
    activation = ctx.options<circle::SubOptionsT>().fused_activation_function;
  else
    activation = ctx.options<circle::MulOptionsT>().fused_activation_function;
  const BinaryQuant q = prepareBinary(ctx, kKind, activation);
  Tensor &out = ctx.allocateOutput(0, broadcastShapes(a.shape, b.shape));
  switch (a.dtype) {
  case DType::UInt8: runTyped<kKind, uint8_t>(a, b, out, q); break;
  case DType::Int8: runTyped<kKind, int8_t>(a, b, out, q); break;
  case DType::Int16: runTyped<kKind, int16_t>(a, b, out, q); break;
  default: throw Error("quantized operands must be uint8, int8 or int16, got " + dtypeString(a.dtype));
  }
}

std::string checkQuantizedBinary(const OpSignature &op) {
  for (std::size_t i : {0, 1})
    if (auto reason = requireInputType(op, i, {DType::UInt8, DType::Int8, DType::Int16}); !reason.empty())
      return reason;
  if (op.inputType(0) != op.inputType(1))
    return "operands are " + dtypeString(op.inputType(0)) + " and " + dtypeString(op.inputType(1));
  const DType out = op.outputType(0);
  if (out != DType::UInt8 && out != DType::Int8 && out != DType::Int16)
    return "output is " + dtypeString(out);
  (void)quant::perTensorQParams(op.inputTensor(0), "input 0");
  (void)quant::perTensorQParams(op.inputTensor(1), "input 1");
  (void)quant::perTensorQParams(op.outputTensor(0), "output");
  return "";
}

} // namespace

void registerQuantizedElementwise(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::ADD, runQuantizedBinary<Arith::Add>, checkQuantizedBinary);
  table.addQuantized(circle::BuiltinOperator::SUB, runQuantizedBinary<Arith::Sub>, checkQuantizedBinary);
  table.addQuantized(circle::BuiltinOperator::MUL, runQuantizedBinary<Arith::Mul>, checkQuantizedBinary);
}

} // namespace tico::interp
