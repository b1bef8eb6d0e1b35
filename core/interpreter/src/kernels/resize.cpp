// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR on NHWC input; the second input is the new
// [height, width]. Source coordinates follow TFLite: scale = in / out, or (in - 1) / (out - 1)
// with align_corners; half_pixel_centers samples at (i + 0.5) * scale - 0.5 (bilinear) or
// (i + 0.5) * scale (nearest).
#include "dispatch.h"
#include "kernels/registrations.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tico::interp {
namespace {

float resizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

struct ResizeGeometry {
  int64_t batch, in_h, in_w, channels, out_h, out_w;
};

ResizeGeometry geometry(KernelContext &ctx, const Tensor &input) {
  check(input.rank() == 4, "input must be NHWC (rank 4), got shape " + shapeString(input.shape));
  const std::vector<int64_t> size = integerValues(ctx.input(1));
  check(size.size() == 2 && size[0] >= 0 && size[1] >= 0,
        "size must be [new_height, new_width], got " + shapeString(size));
  return {input.dim(0), input.dim(1), input.dim(2), input.dim(3), size[0], size[1]};
}

// Lower/upper source index and the weight of the upper one, along one axis.
struct Tap {
  int64_t low, high;
  float frac;
};

std::vector<Tap> bilinearTaps(int64_t in, int64_t out, bool align_corners, bool half_pixel) {
  const float scale = resizeScale(in, out, align_corners);
  std::vector<Tap> taps(static_cast<std::size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float source = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const int64_t low = std::max<int64_t>(static_cast<int64_t>(std::floor(source)), 0);
    const int64_t high = std::min<int64_t>(static_cast<int64_t>(std::ceil(source)), in - 1);
    taps[static_cast<std::size_t>(i)] = {std::min(low, in - 1), high, source - static_cast<float>(low)};
  }
  return taps;
}

void runResizeBilinear(KernelContext &ctx) {
  const auto &options = ctx.options<circle::ResizeBilinearOptionsT>();
  const Tensor &input = ctx.input(0);
  check(input.dtype == DType::Float32, "input must be float32, got " + dtypeString(input.dtype));
  const ResizeGeometry g = geometry(ctx, input);
  Tensor &out = ctx.allocateOutput(0, DType::Float32, {g.batch, g.out_h, g.out_w, g.channels});
  if (out.numel() == 0)
    return;
  check(g.in_h > 0 && g.in_w > 0, "cannot resize an empty image " + shapeString(input.shape));
  const auto ys = bilinearTaps(g.in_h, g.out_h, options.align_corners, options.half_pixel_centers);
  const auto xs = bilinearTaps(g.in_w, g.out_w, options.align_corners, options.half_pixel_centers);
  const float *in = input.as<float>();
  float *o = out.mut<float>();
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t y = 0; y < g.out_h; ++y) {
      const Tap ty = ys[static_cast<std::size_t>(y)];
      for (int64_t x = 0; x < g.out_w; ++x) {
        const Tap tx = xs[static_cast<std::size_t>(x)];
        const float *p00 = in + ((n * g.in_h + ty.low) * g.in_w + tx.low) * g.channels;
        const float *p01 = in + ((n * g.in_h + ty.low) * g.in_w + tx.high) * g.channels;
        const float *p10 = in + ((n * g.in_h + ty.high) * g.in_w + tx.low) * g.channels;
        const float *p11 = in + ((n * g.in_h + ty.high) * g.in_w + tx.high) * g.channels;
        float *dst = o + ((n * g.out_h + y) * g.out_w + x) * g.channels;
        for (int64_t c = 0; c < g.channels; ++c) {
          const float top = p00[c] + (p01[c] - p00[c]) * tx.frac;
          const float bottom = p10[c] + (p11[c] - p10[c]) * tx.frac;
          dst[c] = top + (bottom - top) * ty.frac;
        }
      }
    }
}

int64_t nearestSource(int64_t i, int64_t in, int64_t out, bool align_corners, bool half_pixel) {
  const float scale = resizeScale(in, out, align_corners);
  const float offset = half_pixel ? 0.5f : 0.0f;
  const float source = (static_cast<float>(i) + offset) * scale;
  int64_t index = align_corners ? static_cast<int64_t>(std::round(source)) : static_cast<int64_t>(std::floor(source));
  index = std::min(index, in - 1);
  return half_pixel ? std::max<int64_t>(index, 0) : index;
}

void runResizeNearest(KernelContext &ctx) {
  const auto &options = ctx.options<circle::ResizeNearestNeighborOptionsT>();
  const Tensor &input = ctx.input(0);
  const ResizeGeometry g = geometry(ctx, input);
  Tensor &out = ctx.allocateOutput(0, input.dtype, {g.batch, g.out_h, g.out_w, g.channels});
  if (out.numel() == 0)
    return;
  check(g.in_h > 0 && g.in_w > 0, "cannot resize an empty image " + shapeString(input.shape));
  std::vector<int64_t> ys(static_cast<std::size_t>(g.out_h)), xs(static_cast<std::size_t>(g.out_w));
  for (int64_t y = 0; y < g.out_h; ++y)
    ys[static_cast<std::size_t>(y)] = nearestSource(y, g.in_h, g.out_h, options.align_corners, options.half_pixel_centers);
  for (int64_t x = 0; x < g.out_w; ++x)
    xs[static_cast<std::size_t>(x)] = nearestSource(x, g.in_w, g.out_w, options.align_corners, options.half_pixel_centers);
  dispatchBySize(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t y = 0; y < g.out_h; ++y)
        for (int64_t x = 0; x < g.out_w; ++x) {
          const T *src = in + ((n * g.in_h + ys[static_cast<std::size_t>(y)]) * g.in_w + xs[static_cast<std::size_t>(x)]) * g.channels;
          std::copy(src, src + g.channels, o);
          o += g.channels;
        }
  });
}

} // namespace

void registerResizeKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::RESIZE_BILINEAR, runResizeBilinear);
  table.add(circle::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, runResizeNearest);
}

} // namespace tico::interp
