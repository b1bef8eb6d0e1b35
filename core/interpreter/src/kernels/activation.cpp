// Activations (float32): RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LOGISTIC, TANH, GELU (exact
// or tanh-approximated), ELU, LEAKY_RELU and HARD_SWISH. NaN passes through the clamps.
#include "kernels/registrations.h"
#include "kernels/unary.h"
#include "kernels/vector_exp.h"

#include <algorithm>
#include <cmath>

namespace tico::interp {
namespace {

float clampTo(float x, float low, float high) { return std::min(std::max(x, low), high); }

// 1 / (1 + exp(-x)) with the exponentials of a block at a time (vector_exp.h).
void runLogistic(KernelContext &ctx) {
  mapFloatBlocks(ctx, "LOGISTIC", [](const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = -x[i];
    expFloats(y, y, n);
    for (int64_t i = 0; i < n; ++i)
      y[i] = 1.0f / (1.0f + y[i]);
  });
}

void runGelu(KernelContext &ctx) {
  if (ctx.options<circle::GeluOptionsT>().approximate) {
    const float k = std::sqrt(2.0f / static_cast<float>(M_PI));
    mapFloat(ctx, "GELU", [k](float x) { return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x))); });
  } else {
    mapFloat(ctx, "GELU", [](float x) { return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2))); });
  }
}

void runLeakyRelu(KernelContext &ctx) {
  const float alpha = ctx.options<circle::LeakyReluOptionsT>().alpha;
  mapFloat(ctx, "LEAKY_RELU", [alpha](float x) { return x >= 0.0f ? x : alpha * x; });
}

} // namespace

void registerActivationKernels(KernelTable &table) {
  using B = circle::BuiltinOperator;
  table.add(B::RELU, [](KernelContext &c) { mapFloat(c, "RELU", [](float x) { return std::max(x, 0.0f); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::RELU6, [](KernelContext &c) { mapFloat(c, "RELU6", [](float x) { return clampTo(x, 0.0f, 6.0f); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::RELU_N1_TO_1,
            [](KernelContext &c) { mapFloat(c, "RELU_N1_TO_1", [](float x) { return clampTo(x, -1.0f, 1.0f); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::RELU_0_TO_1,
            [](KernelContext &c) { mapFloat(c, "RELU_0_TO_1", [](float x) { return clampTo(x, 0.0f, 1.0f); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::LOGISTIC, runLogistic, checkFloatInput, kInPlaceInput0);
  table.add(B::TANH, [](KernelContext &c) { mapFloat(c, "TANH", [](float x) { return std::tanh(x); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::GELU, runGelu, checkFloatInput, kInPlaceInput0);
  table.add(B::ELU, [](KernelContext &c) { mapFloat(c, "ELU", [](float x) { return x > 0.0f ? x : std::expm1(x); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::LEAKY_RELU, runLeakyRelu, checkFloatInput, kInPlaceInput0);
  table.add(B::HARD_SWISH, [](KernelContext &c) {
    mapFloat(c, "HARD_SWISH", [](float x) { return x * clampTo(x + 3.0f, 0.0f, 6.0f) / 6.0f; });
  }, checkFloatInput, kInPlaceInput0);
}

} // namespace tico::interp
