// Elementwise one-input helpers shared by the unary math and activation kernels.
#pragma once

#include "dispatch.h"
#include "kernel.h"
#include "parallel.h"

#include <string>

namespace tico::interp {

// block(x, y, n) maps n float32 elements of the input to the output, over blocks of a float32
// tensor; large tensors are split over threads. For kernels that work on arrays (vector_exp.h).
template <typename F> void mapFloatBlocks(KernelContext &ctx, const char *name, F block) {
  const Tensor &in = ctx.input(0);
  check(in.dtype == DType::Float32, std::string(name) + " needs a float32 input, got " + dtypeString(in.dtype));
  Tensor &out = ctx.allocateOutput(0, DType::Float32, in.shape);
  const float *x = in.as<float>();
  float *y = out.mut<float>();
  parallelFor(in.numel(), 1 << 15, [&](int64_t begin, int64_t end) { block(x + begin, y + begin, end - begin); });
}

// out = f(in) elementwise over a float32 tensor.
template <typename F> void mapFloat(KernelContext &ctx, const char *name, F f) {
  mapFloatBlocks(ctx, name, [&f](const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = f(x[i]);
  });
}

// out = f(in) for any numeric dtype (f is a generic callable).
template <typename F> void mapNumeric(KernelContext &ctx, const char *name, F f) {
  const Tensor &in = ctx.input(0);
  Tensor &out = ctx.allocateOutput(0, in.dtype, in.shape);
  dispatchNumeric(in.dtype, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *x = in.as<T>();
    T *y = out.mut<T>();
    for (int64_t i = 0; i < in.numel(); ++i)
      y[i] = static_cast<T>(f(x[i]));
  });
}

inline std::string checkFloatInput(const OpSignature &op) { return requireInputType(op, 0, {DType::Float32}); }
inline std::string checkNumericInput(const OpSignature &op) {
  return requireInputType(op, 0,
                          {DType::Float32, DType::Int32, DType::Int64, DType::Int16, DType::Int8, DType::UInt8});
}

} // namespace tico::interp
