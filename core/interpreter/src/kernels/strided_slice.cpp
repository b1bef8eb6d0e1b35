// STRIDED_SLICE with TensorFlow semantics: begin/end/strides per sparse index, begin_mask and
// end_mask (take the whole range), ellipsis_mask (expands to the dims not named), new_axis_mask
// (inserts a size-1 dim), shrink_axis_mask (takes one index and drops the dim), and Circle/TFLite
// `offset` (end is relative to begin). Out-of-range bounds are clamped like Python slicing;
// negative strides walk backwards. Any dtype.
#include "kernels/registrations.h"
#include "kernels/slice_copy.h"

#include <algorithm>

namespace tico::interp {
namespace {

struct DenseDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = false, end_masked = false, shrink = false;
};

void runStridedSlice(KernelContext &ctx) {
  const auto &options = ctx.options<circle::StridedSliceOptionsT>();
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> begin = integerValues(ctx.input(1));
  const std::vector<int64_t> end = integerValues(ctx.input(2));
  const std::vector<int64_t> strides =
      ctx.present(3) ? integerValues(ctx.input(3)) : std::vector<int64_t>(begin.size(), 1);
  check(end.size() == begin.size() && strides.size() == begin.size(),
        "begin " + shapeString(begin) + ", end " + shapeString(end) + " and strides " + shapeString(strides) +
            " must have the same length");
  const auto bit = [](int32_t mask, std::size_t i) { return i < 32 && ((mask >> i) & 1) != 0; };
  const int64_t rank = input.rank();

  // Sparse -> dense: an ellipsis (explicit, or implied after the last index) covers every dim
  // the other indices do not name; new axes consume no input dim.
  std::size_t sparse = begin.size();
  int32_t ellipsis = options.ellipsis_mask;
  bool has_ellipsis = false;
  int64_t new_axes_after_ellipsis = 0;
  for (std::size_t i = 0; i < sparse; ++i) {
    if (has_ellipsis && bit(options.new_axis_mask, i) && !bit(ellipsis, i))
      ++new_axes_after_ellipsis;
    if (bit(ellipsis, i)) {
      check(!has_ellipsis, "ellipsis_mask has more than one bit set");
      has_ellipsis = true;
    }
  }
  if (!has_ellipsis) {
    ellipsis |= int32_t{1} << sparse;
    ++sparse;
  }
  std::vector<DenseDim> dense(static_cast<std::size_t>(rank));
  // final shape: >= 0 a dense dim kept, -1 a new axis (shrunk dims are not listed)
  std::vector<int64_t> final_dims;
  int64_t full = 0;
  for (std::size_t i = 0; i < sparse; ++i) {
    if (bit(ellipsis, i)) {
      const int64_t next =
          std::min<int64_t>(rank - static_cast<int64_t>(sparse - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) {
        DenseDim &d = dense[static_cast<std::size_t>(full)];
        d.begin_masked = d.end_masked = true;
        final_dims.push_back(full);
      }
    } else if (bit(options.new_axis_mask, i)) {
      final_dims.push_back(-1);
    } else {
      check(full < rank, "the slice has more indices than the input " + shapeString(input.shape) + " has dims");
      DenseDim &d = dense[static_cast<std::size_t>(full)];
      d.begin = begin[i];
      d.end = options.offset ? begin[i] + end[i] : end[i];
      d.stride = strides[i];
      d.begin_masked = bit(options.begin_mask, i);
      d.end_masked = bit(options.end_mask, i);
      d.shrink = bit(options.shrink_axis_mask, i);
      if (!d.shrink)
        final_dims.push_back(full);
      ++full;
    }
  }

  std::vector<int64_t> start(static_cast<std::size_t>(rank)), step(static_cast<std::size_t>(rank)),
      count(static_cast<std::size_t>(rank));
  for (int64_t k = 0; k < rank; ++k) {
    const DenseDim &d = dense[static_cast<std::size_t>(k)];
    const int64_t size = input.dim(k);
    check(d.stride != 0, "stride of dim " + std::to_string(k) + " is 0");
    auto &s = start[static_cast<std::size_t>(k)];
    step[static_cast<std::size_t>(k)] = d.stride;
    if (d.shrink) {
      const int64_t index = d.begin < 0 ? d.begin + size : d.begin;
      check(index >= 0 && index < size, "index " + std::to_string(d.begin) + " is out of range for dim " +
                                            std::to_string(k) + " of size " + std::to_string(size));
      s = index;
      step[static_cast<std::size_t>(k)] = 1;
      count[static_cast<std::size_t>(k)] = 1;
      continue;
    }
    const bool forward = d.stride > 0;
    const int64_t low = forward ? 0 : -1, high = forward ? size : size - 1;
    auto bound = [&](int64_t value, bool masked, bool is_begin) {
      if (masked && is_begin)
        return forward ? int64_t{0} : size - 1;
      if (masked)
        return forward ? size : int64_t{-1};
      const int64_t v = value < 0 ? value + size : value;
      return std::clamp(v, low, high);
    };
    s = bound(d.begin, d.begin_masked, true);
    const int64_t stop = bound(d.end, d.end_masked, false);
    const int64_t span = forward ? stop - s : s - stop;
    const int64_t magnitude = forward ? d.stride : -d.stride;
    count[static_cast<std::size_t>(k)] = span <= 0 ? 0 : (span + magnitude - 1) / magnitude;
  }
  Shape out_shape;
  for (int64_t f : final_dims)
    out_shape.push_back(f < 0 ? 1 : count[static_cast<std::size_t>(f)]);
  Tensor &out = ctx.allocateOutput(0, input.dtype, std::move(out_shape));
  copyBox(input, start, step, count, out);
}

} // namespace

void registerStridedSliceKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::STRIDED_SLICE, runStridedSlice);
}

} // namespace tico::interp
