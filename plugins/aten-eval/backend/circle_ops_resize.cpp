// circle::resize_nearest_neighbor and circle::resize_bilinear: NHWC resizing to size [H, W]
// with TFLite's source coordinates (the ones lower-to-resize-nearest-neighbor matched against
// PyTorch's indices, and core/interpreter/src/kernels/resize.cpp computes), in float32:
//   scale  = in / out, or (in - 1) / (out - 1) with align_corners (and out > 1)
//   nearest:  floor((i + offset) * scale), offset 0.5 with half_pixel_centers; rounded instead
//             of floored with align_corners; clamped to the input
//   bilinear: source (i + 0.5) * scale - 0.5 with half_pixel_centers, else i * scale; the two
//             neighbours floor/ceil (clamped) weighted by the fraction over the floor
#include "circle_ops.h"

#include <algorithm>
#include <cmath>

namespace tico::aten_eval {
namespace {

float resizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

struct ResizeRequest {
  at::Tensor input; // NHWC
  int64_t out_h, out_w;
  bool align_corners, half_pixel;
};

ResizeRequest resizeRequest(CircleArgs &args) {
  ResizeRequest r;
  r.input = args.tensor("input");
  if (r.input.dim() != 4)
    throw args.error("'input' must be NHWC (rank 4), got rank " + std::to_string(r.input.dim()));
  std::vector<int64_t> size = args.ints("size", 2);
  if (size.size() != 2 || size[0] < 0 || size[1] < 0)
    throw args.error("'size' must be [new_height, new_width] with non-negative values");
  r.out_h = size[0];
  r.out_w = size[1];
  r.align_corners = args.boolean("align_corners");
  r.half_pixel = args.boolean("half_pixel_centers");
  if ((r.out_h > 0 && r.out_w > 0) && (r.input.size(1) == 0 || r.input.size(2) == 0))
    throw args.error("cannot resize an empty image");
  return r;
}

at::Tensor indexTensor(const std::vector<int64_t> &indices) {
  return at::tensor(at::ArrayRef<int64_t>(indices), at::TensorOptions().dtype(at::kLong));
}

at::Tensor nearestIndices(int64_t in, int64_t out, bool align_corners, bool half_pixel) {
  const float scale = resizeScale(in, out, align_corners);
  const float offset = half_pixel ? 0.5f : 0.0f;
  std::vector<int64_t> indices(static_cast<std::size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float source = (static_cast<float>(i) + offset) * scale;
    int64_t index = align_corners ? static_cast<int64_t>(std::round(source)) : static_cast<int64_t>(std::floor(source));
    indices[static_cast<std::size_t>(i)] = std::max<int64_t>(std::min(index, in - 1), 0);
  }
  return indexTensor(indices);
}

// Lower and upper source index along one axis and the weight of the upper one.
struct Taps {
  at::Tensor low, high, frac;
};

Taps bilinearTaps(int64_t in, int64_t out, bool align_corners, bool half_pixel) {
  const float scale = resizeScale(in, out, align_corners);
  std::vector<int64_t> low(static_cast<std::size_t>(out)), high(low.size());
  std::vector<float> frac(low.size());
  for (int64_t i = 0; i < out; ++i) {
    const float source = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const int64_t floor = std::max<int64_t>(static_cast<int64_t>(std::floor(source)), 0);
    const auto at = static_cast<std::size_t>(i);
    low[at] = std::min(floor, in - 1);
    high[at] = std::min<int64_t>(static_cast<int64_t>(std::ceil(source)), in - 1);
    frac[at] = source - static_cast<float>(floor);
  }
  return {indexTensor(low), indexTensor(high), at::tensor(at::ArrayRef<float>(frac), at::kFloat)};
}

} // namespace

at::Tensor circleResizeNearestNeighbor(CircleArgs &args) {
  ResizeRequest r = resizeRequest(args);
  const at::Tensor &x = r.input;
  if (r.out_h == 0 || r.out_w == 0)
    return at::empty({x.size(0), r.out_h, r.out_w, x.size(3)}, x.options());
  at::Tensor rows = x.index_select(1, nearestIndices(x.size(1), r.out_h, r.align_corners, r.half_pixel));
  return rows.index_select(2, nearestIndices(x.size(2), r.out_w, r.align_corners, r.half_pixel));
}

at::Tensor circleResizeBilinear(CircleArgs &args) {
  ResizeRequest r = resizeRequest(args);
  const at::Tensor &x = r.input;
  if (x.scalar_type() != at::kFloat)
    throw args.error("RESIZE_BILINEAR takes float32 input");
  if (r.out_h == 0 || r.out_w == 0)
    return at::empty({x.size(0), r.out_h, r.out_w, x.size(3)}, x.options());
  Taps ys = bilinearTaps(x.size(1), r.out_h, r.align_corners, r.half_pixel);
  Taps xs = bilinearTaps(x.size(2), r.out_w, r.align_corners, r.half_pixel);
  at::Tensor upper = x.index_select(1, ys.low), lower = x.index_select(1, ys.high);
  at::Tensor fx = xs.frac.view({1, 1, r.out_w, 1}), fy = ys.frac.view({1, r.out_h, 1, 1});
  at::Tensor p00 = upper.index_select(2, xs.low), p01 = upper.index_select(2, xs.high);
  at::Tensor p10 = lower.index_select(2, xs.low), p11 = lower.index_select(2, xs.high);
  at::Tensor top = p00 + (p01 - p00) * fx;
  at::Tensor bottom = p10 + (p11 - p10) * fx;
  return top + (bottom - top) * fy;
}

} // namespace tico::aten_eval
