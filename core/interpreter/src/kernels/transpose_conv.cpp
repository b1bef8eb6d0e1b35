// TRANSPOSE_CONV (geometry in transpose_conv_geometry.h). Every input pixel scatters
// filter-weighted values into the output window at (y * stride - pad, x * stride - pad);
// contributions that fall outside the output are dropped.
//
// The products are one matrix multiplication (input rows x filter rows, shared kernel) followed
// by a col2im scatter-add.
#include "buffer_pool.h"
#include "gemm.h"
#include "kernels/registrations.h"
#include "kernels/transpose_conv_geometry.h"

#include <algorithm>
#include <vector>

namespace tico::interp {
namespace {

void runTransposeConv(KernelContext &ctx) {
  const auto &options = ctx.options<circle::TransposeConvOptionsT>();
  const Tensor &filter = ctx.input(1);
  const Tensor &input = ctx.input(2);
  check(input.dtype == DType::Float32 && filter.dtype == DType::Float32,
        "input and filter must be float32, got " + dtypeString(input.dtype) + " and " + dtypeString(filter.dtype));
  const TransposeConvGeometry geo = transposeConvGeometry(ctx);
  const int64_t batch = geo.batch, height = geo.height, width = geo.width, in_channels = geo.in_channels;
  const int64_t out_channels = geo.out_channels, kh = geo.kh, kw = geo.kw, out_h = geo.out_h, out_w = geo.out_w;
  const int64_t sh = geo.sh, sw = geo.sw, pad_y = geo.pad_y, pad_x = geo.pad_x;
  const float *bias = nullptr;
  if (ctx.present(3)) {
    const Tensor &b = ctx.input(3);
    check(b.dtype == DType::Float32 && b.numel() == out_channels,
          "bias must be float32 with " + std::to_string(out_channels) + " elements");
    bias = b.as<float>();
  }

  Tensor &out = ctx.allocateOutput(0, DType::Float32, geo.out_shape);
  float *o = out.mut<float>();
  const int64_t out_pixels = batch * out_h * out_w;
  for (int64_t p = 0; p < out_pixels; ++p)
    for (int64_t c = 0; c < out_channels; ++c)
      o[p * out_channels + c] = bias ? bias[c] : 0.0f;

  const int64_t taps = out_channels * kh * kw; // one column per (o, ky, kx), the filter row order
  const int64_t pixels = batch * height * width;
  const int64_t chunk = std::max<int64_t>(1, (int64_t{2} << 20) / std::max<int64_t>(1, taps));
  ScratchArray<float> columns(static_cast<std::size_t>(std::min(chunk, pixels) * taps));
  for (int64_t p0 = 0; p0 < pixels; p0 += chunk) {
    const int64_t count = std::min(chunk, pixels - p0);
    gemmNT(count, taps, in_channels, input.as<float>() + p0 * in_channels, in_channels, filter.as<float>(),
           in_channels, columns.data(), taps);
    for (int64_t p = 0; p < count; ++p) {
      const int64_t pixel = p0 + p;
      const int64_t n = pixel / (height * width), y = (pixel / width) % height, x = pixel % width;
      const float *col = columns.data() + p * taps;
      for (int64_t ky = 0; ky < kh; ++ky) {
        const int64_t oy = y * sh + ky - pad_y;
        if (oy < 0 || oy >= out_h)
          continue;
        for (int64_t kx = 0; kx < kw; ++kx) {
          const int64_t ox = x * sw + kx - pad_x;
          if (ox < 0 || ox >= out_w)
            continue;
          float *dst = o + ((n * out_h + oy) * out_w + ox) * out_channels;
          for (int64_t c = 0; c < out_channels; ++c)
            dst[c] += col[(c * kh + ky) * kw + kx];
        }
      }
    }
  }
  applyActivation(o, out.numel(), options.fused_activation_function);
}

std::string checkTransposeConv(const OpSignature &op) {
  if (auto reason = requireInputType(op, 2, {DType::Float32}); !reason.empty())
    return reason;
  if (auto reason = requireInputType(op, 1, {DType::Float32}); !reason.empty())
    return reason;
  return requireInputType(op, 0, {DType::Int32, DType::Int64});
}

} // namespace

void registerTransposeConvKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::TRANSPOSE_CONV, runTransposeConv, checkTransposeConv);
}

} // namespace tico::interp
