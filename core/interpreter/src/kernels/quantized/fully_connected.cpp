// Quantized FULLY_CONNECTED: out[r, u] = requantize(Σ_k (x[r,k] − zp_x)(w[u,k] − zp_w[u]) + bias[u]).
// Weights [units, in] per tensor or per channel on dim 0 (uint8/int8, or 4-bit unpacked at
// preparation), inputs uint8/int8/int16; see linear.h for the arithmetic. 8-bit activations and
// weights multiply on oneDNN where that is exact (quant/integer_gemm.h), else in the loop below.
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "model_check.h"
#include "parallel.h"
#include "quant/code_dot.h"

#include <algorithm>
#include <type_traits>

namespace tico::interp {
namespace {

// Σ (x − zp_x)(w − zp_w): int16 activations with zero point 0 and 8-bit weights (the LLM
// recipes' lm_head) on the vector dot product, the rest in offsetDot's loop; same integers.
template <typename Acc, typename X, typename W>
Acc codeDot(const X *x, int32_t x_zero, const W *w, int32_t w_zero, int64_t depth) {
  if constexpr (std::is_same_v<X, int16_t> && sizeof(W) == 1) {
    if (x_zero == 0)
      return static_cast<Acc>(quant::dotInt16Codes(x, w, w_zero, depth));
  }
  return quant::offsetDot<Acc>(x, x_zero, w, w_zero, depth);
}


void runQuantizedFullyConnected(KernelContext &ctx) {
  const auto &options = ctx.options<circle::FullyConnectedOptionsT>();
  check(options.weights_format == circle::FullyConnectedOptionsWeightsFormat::DEFAULT,
        std::string("weights format ") + circle::EnumNameFullyConnectedOptionsWeightsFormat(options.weights_format) +
            " is not supported");
  const Tensor &input = ctx.input(0);
  const Tensor &weights = ctx.input(1);
  check(weights.rank() == 2, "weights must be 2-D [units, in], got shape " + shapeString(weights.shape));
  const int64_t units = weights.dim(0), depth = weights.dim(1), total = input.numel();
  check(depth > 0 ? total % depth == 0 : total == 0,
        "input shape " + shapeString(input.shape) + " does not divide into rows of " + std::to_string(depth) +
            " (weights " + shapeString(weights.shape) + ")");
  const int64_t rows = depth > 0 ? total / depth : 0;
  const quant::LinearSpec spec{1, 2, units, 0, options.fused_activation_function};
  // The multipliers and zero points depend on the operator's parameters and constant bias only:
  // prepared once (an LLM head has 262,144 channels).
  const bool constant_bias = !ctx.hasInput(2) || isConstant(ctx.model(), ctx.inputTensor(2));
  quant::LinearQuant fresh;
  const quant::LinearQuant &q = constant_bias
                                    ? preparedState<quant::LinearQuant>(ctx.runner(), ctx.op(),
                                                                        [&] { return quant::prepareLinear(ctx, spec); })
                                    : (fresh = quant::prepareLinear(ctx, spec));

  Shape shape{rows, units};
  if (options.keep_num_dims) {
    check(input.rank() >= 1 && input.shape.back() == depth,
          "keep_num_dims needs the input's last dim (" + shapeString(input.shape) + ") to be " + std::to_string(depth));
    shape = input.shape;
    shape.back() = units;
  }
  Tensor &out = ctx.allocateOutput(0, std::move(shape));
  if (std::vector<int64_t> acc; quant::integerLinear(input, weights, rows, units, depth, q, acc)) {
    quant::storeLinearOutputs(acc, rows, units, q, out, 0);
    return;
  }
  quant::dispatchLinear(input.dtype, weights.dtype, [&](auto x_tag, auto w_tag, auto acc_tag) {
    using X = typename decltype(x_tag)::type;
    using W = typename decltype(w_tag)::type;
    using Acc = typename decltype(acc_tag)::type;
    const X *x = input.as<X>();
    const W *w = weights.as<W>();
    // Blocks of units outer, rows inner: each block of weight rows (a few tens of KB) is read
    // from memory once and meets every input row while it is in cache. Row-major order would
    // stream an LLM head's 170 MB of codes once per token of a prefill. Blocks are shared out
    // over the threads.
    constexpr int64_t kBlock = 64;
    const int64_t blocks = (units + kBlock - 1) / kBlock;
    // int16 activations (zero point 0) with 8-bit weights and several rows: each weight row is
    // widened to int16 (minus its zero point) once and multiplied with every input row.
    constexpr bool kWidenable = std::is_same_v<X, int16_t> && sizeof(W) == 1;
    const bool widen_once = kWidenable && q.input_zero == 0 && rows > 1;
    parallelFor(blocks, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, kBlock * depth * rows)), [&](int64_t b0, int64_t b1) {
      std::vector<int64_t> codes(static_cast<std::size_t>(kBlock * rows));
      std::vector<int16_t> wide(widen_once ? static_cast<std::size_t>(depth) : 0);
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t u0 = b * kBlock, u1 = std::min(units, u0 + kBlock), n = u1 - u0;
        for (int64_t u = u0; u < u1; ++u) {
          const auto c = static_cast<std::size_t>(u);
          if constexpr (kWidenable) {
            if (widen_once) {
              quant::widenCodes(w + u * depth, q.weight_zero[c], wide.data(), depth);
              for (int64_t r = 0; r < rows; ++r)
                codes[static_cast<std::size_t>(r * n + (u - u0))] =
                    q.output(static_cast<Acc>(quant::dotInt16(x + r * depth, wide.data(), depth)), c);
              continue;
            }
          }
          for (int64_t r = 0; r < rows; ++r)
            codes[static_cast<std::size_t>(r * n + (u - u0))] =
                q.output(codeDot<Acc>(x + r * depth, q.input_zero, w + u * depth, q.weight_zero[c], depth), c);
        }
        for (int64_t r = 0; r < rows; ++r)
          quant::storeCodes(codes.data() + r * n, n, out, r * units + u0);
      }
    });
  });
}

std::string checkQuantizedFullyConnected(const OpSignature &op) { return quant::checkLinearTypes(op, 1, 2); }

} // namespace

void registerQuantizedFullyConnected(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::FULLY_CONNECTED, runQuantizedFullyConnected,
                     checkQuantizedFullyConnected);
}

} // namespace tico::interp
