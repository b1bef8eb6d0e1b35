// FULLY_CONNECTED: out = input . weights^T + bias, weights [units, in] as nn.Linear stores them.
//
// The input is read as [rows, in] (any shape whose element count divides by `in`, as TFLite
// does); keep_num_dims keeps its leading dims ([..., units]), otherwise the output is
// [rows, units]. The bias is optional (-1).
#include "gemm.h"
#include "kernels/registrations.h"
#include "parallel.h"
#include "quant/code_dot.h"

#include <algorithm>

namespace tico::interp {
namespace {

// Rows up to which the product is computed as matrix-vector products (gemmNT above).
constexpr int64_t kVectorRows = 4;

void runFullyConnected(KernelContext &ctx) {
  const auto &options = ctx.options<circle::FullyConnectedOptionsT>();
  check(options.weights_format == circle::FullyConnectedOptionsWeightsFormat::DEFAULT,
        std::string("weights format ") + circle::EnumNameFullyConnectedOptionsWeightsFormat(options.weights_format) +
            " is not supported");
  const Tensor &input = ctx.input(0);
  const Tensor &weights = ctx.input(1);
  check(input.dtype == DType::Float32 && weights.dtype == DType::Float32,
        "input and weights must be float32, got " + dtypeString(input.dtype) + " and " + dtypeString(weights.dtype));
  check(weights.rank() == 2, "weights must be 2-D [units, in], got shape " + shapeString(weights.shape));
  const int64_t units = weights.dim(0);
  const int64_t depth = weights.dim(1);
  const int64_t total = input.numel();
  check(depth > 0 ? total % depth == 0 : total == 0,
        "input shape " + shapeString(input.shape) + " does not divide into rows of " + std::to_string(depth) +
            " (weights " + shapeString(weights.shape) + ")");
  const int64_t rows = depth > 0 ? total / depth : 0;

  const float *bias = nullptr;
  if (ctx.present(2)) {
    const Tensor &b = ctx.input(2);
    check(b.dtype == DType::Float32, "bias must be float32, got " + dtypeString(b.dtype));
    check(b.numel() == units, "bias has " + std::to_string(b.numel()) + " elements, weights have " +
                                  std::to_string(units) + " units");
    bias = b.as<float>();
  }

  Shape shape;
  if (options.keep_num_dims) {
    check(input.rank() >= 1 && input.shape.back() == depth,
          "keep_num_dims needs the input's last dim (" + shapeString(input.shape) + ") to be " + std::to_string(depth));
    shape = input.shape;
    shape.back() = units;
  } else {
    shape = {rows, units};
  }
  Tensor &out = ctx.allocateOutput(0, DType::Float32, std::move(shape));
  if (rows <= kVectorRows) {
    // A few rows (an LLM decode step): one dot product per unit, the units shared over the
    // threads; the weights are read once at memory speed.
    const float *x = input.as<float>(), *w = weights.as<float>();
    float *y = out.mut<float>();
    parallelFor(units, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, depth)), [&](int64_t u0, int64_t u1) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t u = u0; u < u1; ++u)
          y[r * units + u] = quant::dotFloat(x + r * depth, w + u * depth, depth) + (bias ? bias[u] : 0.0f);
    });
  } else {
    gemmNT(rows, units, depth, input.as<float>(), depth, weights.as<float>(), depth, out.mut<float>(), units, bias);
  }
  applyActivation(out.mut<float>(), out.numel(), options.fused_activation_function);
}

} // namespace

void registerFullyConnectedKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::FULLY_CONNECTED, runFullyConnected, requireFloat32FirstTwoInputs);
}

} // namespace tico::interp
