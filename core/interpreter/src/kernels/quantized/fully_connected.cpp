// Quantized FULLY_CONNECTED: out[r, u] = requantize(Σ_k (x[r,k] − zp_x)(w[u,k] − zp_w[u]) + bias[u]).
// Weights [units, in] per tensor or per channel on dim 0 (uint8/int8, or 4-bit unpacked at
// preparation), inputs uint8/int8/int16; see linear.h for the arithmetic. 8-bit activations and
// weights multiply on oneDNN where that is exact (quant/integer_gemm.h), else in the loop below.
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "parallel.h"

namespace tico::interp {
namespace {

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
  const quant::LinearQuant q =
      quant::prepareLinear(ctx, {1, 2, units, 0, options.fused_activation_function});

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
    parallelFor(rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, units * depth)), [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> codes(static_cast<std::size_t>(units));
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t u = 0; u < units; ++u) {
          const auto c = static_cast<std::size_t>(u);
          const Acc acc = quant::offsetDot<Acc>(x + r * depth, q.input_zero, w + u * depth, q.weight_zero[c], depth);
          codes[c] = q.output(acc, c);
        }
        quant::storeCodes(codes.data(), units, out, r * units);
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
