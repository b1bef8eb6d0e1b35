// RMS_NORM (Circle extension): y = x / sqrt(mean(x^2 over the last axis) + epsilon) * gamma,
// for float32 input of any rank >= 1 and gamma with one value per element of the last axis
// (or a single value). The mean of squares accumulates in double, as onert's kernel does.
#include "kernels/registrations.h"
#include "parallel.h"

#include <cmath>

namespace tico::interp {
namespace {

void runRmsNorm(KernelContext &ctx) {
  const float epsilon = ctx.options<circle::RmsNormOptionsT>().epsilon;
  const Tensor &input = ctx.input(0);
  const Tensor &gamma = ctx.input(1);
  check(input.dtype == DType::Float32 && gamma.dtype == DType::Float32,
        "input and gamma must be float32, got " + dtypeString(input.dtype) + " and " + dtypeString(gamma.dtype));
  check(input.rank() >= 1, "input must have rank >= 1");
  const int64_t depth = input.shape.back();
  check(gamma.numel() == depth || gamma.numel() == 1,
        "gamma " + shapeString(gamma.shape) + " must have " + std::to_string(depth) +
            " elements (the input's last dim) or 1");
  Tensor &out = ctx.allocateOutput(0, DType::Float32, input.shape);
  if (depth == 0)
    return;
  const int64_t rows = input.numel() / depth;
  const float *x = input.as<float>();
  const float *g = gamma.as<float>();
  const bool per_channel = gamma.numel() == depth;
  float *y = out.mut<float>();
  parallelFor(rows, std::max<int64_t>(1, 8192 / depth), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float *row = x + r * depth;
      double squares = 0.0;
      for (int64_t i = 0; i < depth; ++i)
        squares += static_cast<double>(row[i]) * row[i];
      const double inv_rms = 1.0 / std::sqrt(squares / static_cast<double>(depth) + epsilon);
      for (int64_t i = 0; i < depth; ++i)
        y[r * depth + i] = static_cast<float>(row[i] * inv_rms * (per_channel ? g[i] : g[0]));
    }
  });
}

} // namespace

void registerRmsNormKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::RMS_NORM, runRmsNorm, requireFloat32FirstTwoInputs);
}

} // namespace tico::interp
