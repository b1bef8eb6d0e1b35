// Quantized DEPTHWISE_CONV_2D: NHWC input, filter [1, kh, kw, C·M] (per tensor or per channel
// on dim 3), output channel c·M + m reads input channel c. Positions outside the image are
// skipped (= padding with the input's zero point).
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/conv_geometry.h"
#include "parallel.h"

namespace tico::interp {
namespace {

void runQuantizedDepthwiseConv2D(KernelContext &ctx) {
  const auto &options = ctx.options<circle::DepthwiseConv2DOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &filter = ctx.input(1);
  const ConvGeometry geo = depthwiseGeometry(input, filter, options);
  const int64_t batch = geo.batch, height = geo.height, width = geo.width, channels = geo.channels;
  const int64_t kh = geo.kh, kw = geo.kw, out_channels = geo.out_channels, multiplier = geo.multiplier;
  const quant::LinearQuant q = quant::prepareLinear(ctx, {1, 2, out_channels, 3, options.fused_activation_function});

  const int64_t dh = geo.dh, dw = geo.dw, sh = geo.sh, sw = geo.sw;
  const WindowAxis wy = geo.wy, wx = geo.wx;
  Tensor &out = ctx.allocateOutput(0, {batch, wy.out, wx.out, out_channels});
  quant::dispatchLinear(input.dtype, filter.dtype, [&](auto x_tag, auto w_tag, auto acc_tag) {
    using X = typename decltype(x_tag)::type;
    using W = typename decltype(w_tag)::type;
    using Acc = typename decltype(acc_tag)::type;
    const X *in = input.as<X>();
    const W *w = filter.as<W>();
    parallelFor(batch * wy.out, 1, [&](int64_t r0, int64_t r1) {
      std::vector<Acc> acc(static_cast<std::size_t>(out_channels));
      std::vector<int64_t> codes(static_cast<std::size_t>(out_channels));
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / wy.out, oy = r % wy.out;
        for (int64_t ox = 0; ox < wx.out; ++ox) {
          std::fill(acc.begin(), acc.end(), Acc{0});
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = oy * sh + ky * dh - wy.pad_before;
            if (iy < 0 || iy >= height)
              continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = ox * sw + kx * dw - wx.pad_before;
              if (ix < 0 || ix >= width)
                continue;
              const X *src = in + ((n * height + iy) * width + ix) * channels;
              const W *tap = w + (ky * kw + kx) * out_channels;
              for (int64_t oc = 0; oc < out_channels; ++oc) {
                const auto c = static_cast<std::size_t>(oc);
                acc[c] += static_cast<Acc>(static_cast<int32_t>(src[oc / multiplier]) - q.input_zero) *
                          static_cast<Acc>(static_cast<int32_t>(tap[oc]) - q.weight_zero[c]);
              }
            }
          }
          for (std::size_t c = 0; c < codes.size(); ++c)
            codes[c] = q.output(acc[c], c);
          quant::storeCodes(codes.data(), out_channels, out, ((n * wy.out + oy) * wx.out + ox) * out_channels);
        }
      }
    });
  });
}

std::string checkQuantizedDepthwiseConv2D(const OpSignature &op) { return quant::checkLinearTypes(op, 1, 2); }

} // namespace

void registerQuantizedDepthwiseConv2D(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::DEPTHWISE_CONV_2D, runQuantizedDepthwiseConv2D,
                     checkQuantizedDepthwiseConv2D);
}

} // namespace tico::interp
