// Quantized CONV_2D: NHWC input, OHWI filter (per tensor or per output channel on dim 0),
// SAME/VALID padding, strides, dilations, groups (filter channels < input channels) and a
// clamp activation applied in the quantized domain. Positions outside the image are skipped,
// which is the same as padding with the input's zero point (they contribute 0). One group of
// 8-bit codes multiplies on oneDNN where that is exact (quant/integer_gemm.h).
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/conv_geometry.h"
#include "buffer_pool.h"
#include "parallel.h"
#include "quant/integer_gemm.h"

#include <cstring>

namespace tico::interp {
namespace {

// One group of 8-bit codes: im2col columns (positions outside the image hold the input's zero
// point, which contributes 0 like the skipped positions of the loop below), then the
// library's integer product over blocks of output positions (quant::integerLinear). False when
// the library path does not apply (types, CPU).
bool convolveOnLibrary(const Tensor &input, const Tensor &filter, const ConvGeometry &geo, const quant::LinearQuant &q,
                       Tensor &out) {
  const bool x8 = input.dtype == DType::UInt8 || input.dtype == DType::Int8;
  if (!x8 || q.wide || !quant::integerGemmAvailable())
    return false;
  const int64_t depth = geo.kh * geo.kw * geo.channels, positions = geo.batch * geo.wy.out * geo.wx.out;
  if (depth <= 0 || positions <= 0)
    return false;
  const int64_t block = std::max<int64_t>(1, (int64_t{8} << 20) / depth); // columns of at most 8 MiB
  const Tensor weights{filter.dtype, {geo.out_channels, depth}, filter.owner, filter.data};
  ScratchArray<uint8_t> columns(static_cast<std::size_t>(std::min(block, positions) * depth));
  const auto fill = static_cast<uint8_t>(q.input_zero); // the code of real 0, in the input's bytes
  std::vector<int64_t> acc;
  for (int64_t p0 = 0; p0 < positions; p0 += block) {
    const int64_t count = std::min(block, positions - p0);
    parallelFor(count, std::max<int64_t>(1, 65536 / depth), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t p = p0 + r, ox = p % geo.wx.out, oy = (p / geo.wx.out) % geo.wy.out, n = p / (geo.wx.out * geo.wy.out);
        uint8_t *row = columns.data() + r * depth;
        for (int64_t ky = 0; ky < geo.kh; ++ky)
          for (int64_t kx = 0; kx < geo.kw; ++kx) {
            uint8_t *dst = row + (ky * geo.kw + kx) * geo.channels;
            const int64_t iy = oy * geo.sh + ky * geo.dh - geo.wy.pad_before;
            const int64_t ix = ox * geo.sw + kx * geo.dw - geo.wx.pad_before;
            if (iy < 0 || iy >= geo.height || ix < 0 || ix >= geo.width)
              std::fill(dst, dst + geo.channels, fill);
            else
              std::memcpy(dst, input.data + ((n * geo.height + iy) * geo.width + ix) * geo.channels,
                          static_cast<std::size_t>(geo.channels));
          }
      }
    });
    const Tensor block_columns{input.dtype, {count, depth}, nullptr, reinterpret_cast<std::byte *>(columns.data())};
    if (!quant::integerLinear(block_columns, weights, count, geo.out_channels, depth, q, acc)) {
      if (p0 == 0)
        return false; // the loops compute it all
      throw Error("the integer product became unavailable during a convolution");
    }
    quant::storeLinearOutputs(acc, count, geo.out_channels, q, out, p0);
  }
  return true;
}

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
  if (groups == 1 && convolveOnLibrary(input, filter, geo, q, out))
    return;
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
