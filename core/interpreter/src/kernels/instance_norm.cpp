// INSTANCE_NORM (Circle extension), channels last: input [N, spatial..., C] (rank >= 2),
// gamma and beta with C values (or one). For every sample n and channel c, the mean and the
// biased variance over the spatial positions normalise the values:
//   y = gamma[c] * (x - mean) / sqrt(var + epsilon) + beta[c], then the fused activation.
// Statistics accumulate in double.
#include "kernels/registrations.h"

#include <cmath>
#include <vector>

namespace tico::interp {
namespace {

void runInstanceNorm(KernelContext &ctx) {
  const auto &options = ctx.options<circle::InstanceNormOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &gamma = ctx.input(1);
  const Tensor &beta = ctx.input(2);
  check(input.dtype == DType::Float32 && gamma.dtype == DType::Float32 && beta.dtype == DType::Float32,
        "input, gamma and beta must be float32");
  check(input.rank() >= 2, "input must be [N, spatial..., C] (rank >= 2), got shape " + shapeString(input.shape));
  const int64_t batch = input.dim(0), channels = input.shape.back();
  const int64_t spatial = channels > 0 && batch > 0 ? input.numel() / (batch * channels) : 0;
  for (const Tensor *t : {&gamma, &beta})
    check(t->numel() == channels || t->numel() == 1, (t == &gamma ? "gamma " : "beta ") + shapeString(t->shape) +
                                                         " must have " + std::to_string(channels) + " elements or 1");
  Tensor &out = ctx.allocateOutput(0, DType::Float32, input.shape);
  const float *x = input.as<float>();
  float *y = out.mut<float>();
  std::vector<double> sum(static_cast<std::size_t>(channels)), squares(static_cast<std::size_t>(channels));
  for (int64_t n = 0; n < batch; ++n) {
    const float *sample = x + n * spatial * channels;
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int64_t p = 0; p < spatial; ++p)
      for (int64_t c = 0; c < channels; ++c)
        sum[static_cast<std::size_t>(c)] += sample[p * channels + c];
    std::fill(squares.begin(), squares.end(), 0.0);
    for (int64_t p = 0; p < spatial; ++p)
      for (int64_t c = 0; c < channels; ++c) {
        const double d = sample[p * channels + c] - sum[static_cast<std::size_t>(c)] / static_cast<double>(spatial);
        squares[static_cast<std::size_t>(c)] += d * d;
      }
    for (int64_t c = 0; c < channels; ++c) {
      const double mean = sum[static_cast<std::size_t>(c)] / static_cast<double>(spatial);
      const double inv = 1.0 / std::sqrt(squares[static_cast<std::size_t>(c)] / static_cast<double>(spatial) +
                                         options.epsilon);
      const double g = gamma.as<float>()[gamma.numel() == 1 ? 0 : c];
      const double b = beta.as<float>()[beta.numel() == 1 ? 0 : c];
      for (int64_t p = 0; p < spatial; ++p) {
        const int64_t at = (n * spatial + p) * channels + c;
        y[at] = static_cast<float>(g * (x[at] - mean) * inv + b);
      }
    }
  }
  applyActivation(y, out.numel(), options.fused_activation_function);
}

std::string checkInstanceNorm(const OpSignature &op) { return requireInputType(op, 0, {DType::Float32}); }

} // namespace

void registerInstanceNormKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::INSTANCE_NORM, runInstanceNorm, checkInstanceNorm);
}

} // namespace tico::interp
