// Quantized MAX_POOL_2D and AVERAGE_POOL_2D (NHWC, SAME/VALID, strides): input and output share
// type, scale and zero point, so pooling works on the codes directly. Max takes the largest
// valid code; average sums the valid codes in int32 and divides by their count rounding half
// away from zero (the affine map commutes with averaging up to that rounding). The fused
// activation is a clamp in the quantized domain.
#include "kernels/quantized/checks.h"
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/window.h"

#include <algorithm>

namespace tico::interp {
namespace {

template <bool kMax, typename T>
void poolCodes(const Tensor &input, Tensor &out, const circle::Pool2DOptionsT &options, const WindowAxis &wy,
               const WindowAxis &wx, const quant::Range &clamp) {
  const int64_t height = input.dim(1), width = input.dim(2), channels = input.dim(3);
  const T *in = input.as<T>();
  T *o = out.mut<T>();
  std::vector<int32_t> acc(static_cast<std::size_t>(channels));
  for (int64_t n = 0; n < input.dim(0); ++n)
    for (int64_t oy = 0; oy < wy.out; ++oy) {
      const int64_t y0 = std::max<int64_t>(oy * options.stride_h - wy.pad_before, 0);
      const int64_t y1 = std::min<int64_t>(oy * options.stride_h - wy.pad_before + options.filter_height, height);
      for (int64_t ox = 0; ox < wx.out; ++ox) {
        const int64_t x0 = std::max<int64_t>(ox * options.stride_w - wx.pad_before, 0);
        const int64_t x1 = std::min<int64_t>(ox * options.stride_w - wx.pad_before + options.filter_width, width);
        std::fill(acc.begin(), acc.end(), kMax ? INT32_MIN : 0);
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x) {
            const T *src = in + ((n * height + y) * width + x) * channels;
            for (int64_t c = 0; c < channels; ++c) {
              int32_t &a = acc[static_cast<std::size_t>(c)];
              a = kMax ? std::max<int32_t>(a, src[c]) : a + src[c];
            }
          }
        const int32_t count = static_cast<int32_t>(std::max<int64_t>(y1 - y0, 0) * std::max<int64_t>(x1 - x0, 0));
        T *dst = o + ((n * wy.out + oy) * wx.out + ox) * channels;
        for (int64_t c = 0; c < channels; ++c) {
          int64_t v = acc[static_cast<std::size_t>(c)];
          if (!kMax)
            v = count == 0 ? 0 : (v >= 0 ? (v + count / 2) / count : (v - count / 2) / count);
          dst[c] = static_cast<T>(std::clamp(v, clamp.lo, clamp.hi));
        }
      }
    }
}

template <bool kMax> void runQuantizedPool(KernelContext &ctx) {
  const auto &options = ctx.options<circle::Pool2DOptionsT>();
  const Tensor &input = ctx.input(0);
  check(input.rank() == 4, "input must be NHWC (rank 4), got shape " + shapeString(input.shape));
  const quant::QParams p = quant::perTensorQParams(ctx.outputTensor(0), "output");
  const quant::Range clamp =
      quant::activationRange(options.fused_activation_function, p.scale[0], p.zero_point[0], input.dtype);
  const WindowAxis wy = windowAxis(input.dim(1), options.filter_height, options.stride_h, 1, options.padding, "height");
  const WindowAxis wx = windowAxis(input.dim(2), options.filter_width, options.stride_w, 1, options.padding, "width");
  Tensor &out = ctx.allocateOutput(0, {input.dim(0), wy.out, wx.out, input.dim(3)});
  switch (input.dtype) {
  case DType::UInt8: poolCodes<kMax, uint8_t>(input, out, options, wy, wx, clamp); break;
  case DType::Int8: poolCodes<kMax, int8_t>(input, out, options, wy, wx, clamp); break;
  case DType::Int16: poolCodes<kMax, int16_t>(input, out, options, wy, wx, clamp); break;
  default: throw Error("quantized pooling needs uint8, int8 or int16, got " + dtypeString(input.dtype));
  }
}

} // namespace

void registerQuantizedPool(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::MAX_POOL_2D, runQuantizedPool<true>, quant::checkSameCodesAsInput);
  table.addQuantized(circle::BuiltinOperator::AVERAGE_POOL_2D, runQuantizedPool<false>, quant::checkSameCodesAsInput);
}

} // namespace tico::interp
