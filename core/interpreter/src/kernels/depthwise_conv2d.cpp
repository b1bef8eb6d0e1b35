// DEPTHWISE_CONV_2D on NHWC input with a [1, kh, kw, C * multiplier] filter and a bias
// (optional): output channel c * multiplier + m reads input channel c. SAME/VALID padding,
// strides, dilations, fused activation. The inner loop runs over contiguous channels.
#include "kernels/registrations.h"
#include "kernels/conv_geometry.h"
#include "parallel.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

void runDepthwiseConv2D(KernelContext &ctx) {
  const auto &options = ctx.options<circle::DepthwiseConv2DOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &filter = ctx.input(1);
  check(input.dtype == DType::Float32 && filter.dtype == DType::Float32,
        "input and filter must be float32, got " + dtypeString(input.dtype) + " and " + dtypeString(filter.dtype));
  const ConvGeometry geo = depthwiseGeometry(input, filter, options);
  const int64_t batch = geo.batch, height = geo.height, width = geo.width, channels = geo.channels;
  const int64_t kh = geo.kh, kw = geo.kw, out_channels = geo.out_channels, multiplier = geo.multiplier;
  const float *bias = nullptr;
  if (ctx.present(2)) {
    const Tensor &b = ctx.input(2);
    check(b.dtype == DType::Float32 && b.numel() == out_channels,
          "bias must be float32 with " + std::to_string(out_channels) + " elements, got " + dtypeString(b.dtype) +
              shapeString(b.shape));
    bias = b.as<float>();
  }
  const int64_t dh = geo.dh, dw = geo.dw, sh = geo.sh, sw = geo.sw;
  const WindowAxis wy = geo.wy, wx = geo.wx;
  Tensor &out = ctx.allocateOutput(0, DType::Float32, {batch, wy.out, wx.out, out_channels});
  const float *in = input.as<float>();
  const float *w = filter.as<float>();
  float *o = out.mut<float>();

  parallelFor(batch * wy.out, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, wx.out * out_channels * kh * kw)),
              [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / wy.out, oy = r % wy.out;
      for (int64_t ox = 0; ox < wx.out; ++ox) {
        float *acc = o + ((n * wy.out + oy) * wx.out + ox) * out_channels;
        if (bias != nullptr)
          std::memcpy(acc, bias, static_cast<std::size_t>(out_channels) * sizeof(float));
        else
          std::fill(acc, acc + out_channels, 0.0f);
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t iy = oy * sh + ky * dh - wy.pad_before;
          if (iy < 0 || iy >= height)
            continue;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t ix = ox * sw + kx * dw - wx.pad_before;
            if (ix < 0 || ix >= width)
              continue;
            const float *src = in + ((n * height + iy) * width + ix) * channels;
            const float *wk = w + (ky * kw + kx) * out_channels;
            if (multiplier == 1) {
              for (int64_t c = 0; c < channels; ++c)
                acc[c] += src[c] * wk[c];
            } else {
              for (int64_t c = 0; c < channels; ++c)
                for (int64_t m = 0; m < multiplier; ++m)
                  acc[c * multiplier + m] += src[c] * wk[c * multiplier + m];
            }
          }
        }
      }
    }
  });
  applyActivation(o, out.numel(), options.fused_activation_function);
}

} // namespace

void registerDepthwiseConv2DKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::DEPTHWISE_CONV_2D, runDepthwiseConv2D, requireFloat32FirstTwoInputs);
}

} // namespace tico::interp
