// SOFTMAX (with beta) and LOG_SOFTMAX over the last axis, float32. The maximum is subtracted
// first; the exponentials are computed a row at a time (vector_exp.h); sums accumulate in double.
#include "kernels/registrations.h"
#include "kernels/vector_exp.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>

namespace tico::interp {
namespace {

template <bool kLog> void runSoftmax(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  check(input.dtype == DType::Float32, "input must be float32, got " + dtypeString(input.dtype));
  const float beta = kLog ? 1.0f : ctx.options<circle::SoftmaxOptionsT>().beta;
  Tensor &out = ctx.allocateOutput(0, DType::Float32, input.shape);
  const int64_t depth = input.rank() == 0 ? 1 : input.shape.back();
  if (depth == 0)
    return;
  const int64_t rows = input.numel() / depth;
  const float *in = input.as<float>();
  float *o = out.mut<float>();
  parallelFor(rows, std::max<int64_t>(1, 8192 / depth), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float *x = in + r * depth;
      float *y = o + r * depth;
      float max = x[0];
      for (int64_t i = 1; i < depth; ++i)
        max = std::max(max, x[i]);
      for (int64_t i = 0; i < depth; ++i)
        y[i] = (x[i] - max) * beta;
      expFloats(y, y, depth);
      double sum = 0.0;
      for (int64_t i = 0; i < depth; ++i)
        sum += y[i];
      if constexpr (kLog) {
        const float log_sum = static_cast<float>(std::log(sum));
        for (int64_t i = 0; i < depth; ++i)
          y[i] = (x[i] - max) - log_sum;
      } else {
        const float scale = static_cast<float>(1.0 / sum);
        for (int64_t i = 0; i < depth; ++i)
          y[i] *= scale;
      }
    }
  });
}

std::string checkFloat(const OpSignature &op) { return requireInputType(op, 0, {DType::Float32}); }

} // namespace

void registerSoftmaxKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::SOFTMAX, runSoftmax<false>, checkFloat);
  table.add(circle::BuiltinOperator::LOG_SOFTMAX, runSoftmax<true>, checkFloat);
}

} // namespace tico::interp
