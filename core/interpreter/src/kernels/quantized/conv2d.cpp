// Quantized CONV_2D: NHWC input, OHWI filter (per tensor or per output channel on dim 0),
// SAME/VALID padding, strides, dilations, groups (filter channels < input channels) and a
// clamp activation applied in the quantized domain. Positions outside the image are skipped,
// which is the same as padding with the input's zero point (they contribute 0).
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/conv_geometry.h"
#include "parallel.h"

namespace tico::interp {
namespace {

void runQuantizedConv2D(KernelContext &ctx) {
  const auto &options = ctx.options<circle::Conv2DOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &filter = ctx.input(1);
  const ConvGeometry geo = conv2dGeometry(input, filter, options);
  const int64_t batch = geo.batch, height = geo.height, width = geo.width, channels = geo.channels;
  const int64_t out_channels = geo.out_channels, kh = geo.kh, kw = geo.kw, group_channels = geo.group_channels;
  const int64_t groups = geo.groups, group_out = geo.group_out;
  const quant::LinearQuant q = quant::prepareLinear(ctx, {1, 2, out_channels, 0, options.fused_activation_function});

  const int64_t dh = geo.dh, dw = geo.dw, sh = geo.sh, sw = geo.sw;
  const WindowAxis wy = geo.wy, wx = geo.wx;
  Tensor &out = ctx.allocateOutput(0, {batch, wy.out, wx.out, out_channels});
  quant::dispatchLinear(input.dtype, filter.dtype, [&](auto x_tag, auto w_tag, auto acc_tag) {
    using X = typename decltype(x_tag)::type;
    using W = typename decltype(w_tag)::type;
    using Acc = typename decltype(acc_tag)::type;
    const X *in = input.as<X>();
    const W *w = filter.as<W>();
    const int64_t work = wx.out * out_channels * kh * kw * group_channels;
    parallelFor(batch * wy.out, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, work)), [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> codes(static_cast<std::size_t>(out_channels));
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / wy.out, oy = r % wy.out;
        for (int64_t ox = 0; ox < wx.out; ++ox) {
          for (int64_t oc = 0; oc < out_channels; ++oc) {
            const auto c = static_cast<std::size_t>(oc);
            const int64_t first_channel = (oc / group_out) * group_channels;
            Acc acc = 0;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = oy * sh + ky * dh - wy.pad_before;
              if (iy < 0 || iy >= height)
                continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = ox * sw + kx * dw - wx.pad_before;
                if (ix < 0 || ix >= width)
                  continue;
                acc += quant::offsetDot<Acc>(in + ((n * height + iy) * width + ix) * channels + first_channel,
                                             q.input_zero, w + ((oc * kh + ky) * kw + kx) * group_channels,
                                             q.weight_zero[c], group_channels);
              }
            }
            codes[c] = q.output(acc, c);
          }
          quant::storeCodes(codes.data(), out_channels, out, ((n * wy.out + oy) * wx.out + ox) * out_channels);
        }
      }
    });
  });
}

std::string checkQuantizedConv2D(const OpSignature &op) { return quant::checkLinearTypes(op, 1, 2); }

} // namespace

void registerQuantizedConv2D(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::CONV_2D, runQuantizedConv2D, checkQuantizedConv2D);
}

} // namespace tico::interp
