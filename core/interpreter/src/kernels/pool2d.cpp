// MAX_POOL_2D and AVERAGE_POOL_2D on NHWC float32 input (SAME/VALID, strides, fused
// activation). Windows never read padding: max takes the valid elements only, and average
// divides by the number of valid elements, as TFLite does.
#include "kernels/registrations.h"
#include "kernels/window.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tico::interp {
namespace {

template <bool kMax> void runPool(KernelContext &ctx) {
  const auto &options = ctx.options<circle::Pool2DOptionsT>();
  const Tensor &input = ctx.input(0);
  check(input.dtype == DType::Float32, "input must be float32, got " + dtypeString(input.dtype));
  check(input.rank() == 4, "input must be NHWC (rank 4), got shape " + shapeString(input.shape));
  const int64_t batch = input.dim(0), height = input.dim(1), width = input.dim(2), channels = input.dim(3);
  const WindowAxis wy = windowAxis(height, options.filter_height, options.stride_h, 1, options.padding, "height");
  const WindowAxis wx = windowAxis(width, options.filter_width, options.stride_w, 1, options.padding, "width");
  Tensor &out = ctx.allocateOutput(0, DType::Float32, {batch, wy.out, wx.out, channels});
  const float *in = input.as<float>();
  float *o = out.mut<float>();

  parallelFor(batch * wy.out, 8, [&](int64_t r0, int64_t r1) {
    std::vector<float> acc(static_cast<std::size_t>(channels));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / wy.out, oy = r % wy.out;
      const int64_t y0 = std::max<int64_t>(oy * options.stride_h - wy.pad_before, 0);
      const int64_t y1 = std::min<int64_t>(oy * options.stride_h - wy.pad_before + options.filter_height, height);
      for (int64_t ox = 0; ox < wx.out; ++ox) {
        const int64_t x0 = std::max<int64_t>(ox * options.stride_w - wx.pad_before, 0);
        const int64_t x1 = std::min<int64_t>(ox * options.stride_w - wx.pad_before + options.filter_width, width);
        std::fill(acc.begin(), acc.end(), kMax ? -INFINITY : 0.0f);
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x) {
            const float *src = in + ((n * height + y) * width + x) * channels;
            for (int64_t c = 0; c < channels; ++c) {
              if constexpr (kMax) { // NaN wins, as in torch's max pooling
                float &best = acc[static_cast<std::size_t>(c)];
                best = (src[c] > best || std::isnan(src[c])) ? src[c] : best;
              }
              else
                acc[static_cast<std::size_t>(c)] += src[c];
            }
          }
        float *dst = o + ((n * wy.out + oy) * wx.out + ox) * channels;
        const int64_t count = std::max<int64_t>(y1 - y0, 0) * std::max<int64_t>(x1 - x0, 0);
        for (int64_t c = 0; c < channels; ++c) {
          if constexpr (kMax)
            dst[c] = acc[static_cast<std::size_t>(c)];
          else
            dst[c] = count > 0 ? acc[static_cast<std::size_t>(c)] / static_cast<float>(count) : 0.0f;
        }
      }
    }
  });
  applyActivation(o, out.numel(), options.fused_activation_function);
}

std::string checkPool(const OpSignature &op) { return requireInputType(op, 0, {DType::Float32}); }

} // namespace

void registerPoolKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::MAX_POOL_2D, runPool<true>, checkPool);
  table.add(circle::BuiltinOperator::AVERAGE_POOL_2D, runPool<false>, checkPool);
}

} // namespace tico::interp
