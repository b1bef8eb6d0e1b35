// CONV_2D on NHWC input with an OHWI filter [out, kh, kw, in / groups] and a bias [out]
// (optional), SAME/VALID padding, strides, dilations and a fused activation. When the filter
// has fewer input channels than the input, the convolution is grouped (groups = C / filter C).
//
// Each group is an im2col (rows of kh*kw*c patch values, zeros outside the image, in filter
// order) followed by the shared matrix kernel against the filter rows. 1x1 stride-1
// convolutions use the input directly as the matrix.
#include "buffer_pool.h"
#include "gemm.h"
#include "parallel.h"
#include "kernels/registrations.h"
#include "kernels/conv_geometry.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tico::interp {
namespace {

void runConv2D(KernelContext &ctx) {
  const auto &options = ctx.options<circle::Conv2DOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &filter = ctx.input(1);
  check(input.dtype == DType::Float32 && filter.dtype == DType::Float32,
        "input and filter must be float32, got " + dtypeString(input.dtype) + " and " + dtypeString(filter.dtype));
  const ConvGeometry geo = conv2dGeometry(input, filter, options);
  const int64_t batch = geo.batch, height = geo.height, width = geo.width, channels = geo.channels;
  const int64_t out_channels = geo.out_channels, kh = geo.kh, kw = geo.kw, group_channels = geo.group_channels;
  const int64_t groups = geo.groups, group_out = geo.group_out;

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
  const int64_t pixels = wy.out * wx.out;
  const int64_t patch = kh * kw * group_channels;
  const float *in = input.as<float>();
  const float *w = filter.as<float>();
  float *o = out.mut<float>();

  const bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && wy.pad_before == 0 && wx.pad_before == 0 &&
                      wy.out == height && wx.out == width;
  if (direct) {
    for (int64_t g = 0; g < groups; ++g)
      gemmNT(batch * pixels, group_out, group_channels, in + g * group_channels, channels,
             w + g * group_out * patch, patch, o + g * group_out, out_channels, bias ? bias + g * group_out : nullptr);
  } else {
    // im2col in chunks of output pixels, so the patch matrix stays around 8 MiB.
    const int64_t chunk = std::max<int64_t>(1, (int64_t{2} << 20) / std::max<int64_t>(1, patch));
    ScratchArray<float> columns(static_cast<std::size_t>(std::min(chunk, pixels) * patch));
    for (int64_t n = 0; n < batch; ++n) {
      const float *image = in + n * height * width * channels;
      for (int64_t g = 0; g < groups; ++g) {
        for (int64_t p0 = 0; p0 < pixels; p0 += chunk) {
          const int64_t count = std::min(chunk, pixels - p0);
          // The patch rows are independent; on oneDNN's products building them was most of a
          // convolution's time, so they are split over threads as the product is.
          parallelFor(count, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, patch)), [&](int64_t q0, int64_t q1) {
            for (int64_t p = q0; p < q1; ++p) {
              const int64_t oy = (p0 + p) / wx.out, ox = (p0 + p) % wx.out;
              float *row = columns.data() + p * patch;
              for (int64_t ky = 0; ky < kh; ++ky) {
                const int64_t iy = oy * sh + ky * dh - wy.pad_before;
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t ix = ox * sw + kx * dw - wx.pad_before;
                  float *dst = row + (ky * kw + kx) * group_channels;
                  if (iy < 0 || iy >= height || ix < 0 || ix >= width)
                    std::fill(dst, dst + group_channels, 0.0f);
                  else
                    std::memcpy(dst, image + (iy * width + ix) * channels + g * group_channels,
                                static_cast<std::size_t>(group_channels) * sizeof(float));
                }
              }
            }
          });
          gemmNT(count, group_out, patch, columns.data(), patch, w + g * group_out * patch, patch,
                 o + (n * pixels + p0) * out_channels + g * group_out, out_channels,
                 bias ? bias + g * group_out : nullptr);
        }
      }
    }
  }
  applyActivation(o, out.numel(), options.fused_activation_function);
}

} // namespace

void registerConv2DKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::CONV_2D, runConv2D, requireFloat32FirstTwoInputs);
}

} // namespace tico::interp
