// Sliding-window geometry shared by the window rules (window_*.cpp): PyTorch's pooling output
// size, and the unrolled form of a window op. An unrolled window reads, for every kernel
// offset, one strided slice of the (padded) input whose element [.., oh, ow] is the value
// that offset contributes to output [.., oh, ow]; max and average pooling then combine the
// slices elementwise. This needs static spatial sizes; other dims may be symbolic.
#pragma once

#include "decomposition.h"

#include "tico/ir/tensor_data.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tico::decompose {

// One spatial axis of a pooling window, in PyTorch's terms.
struct WindowAxis {
  int64_t input = 0; // static input size
  int64_t kernel = 1, stride = 1, pad = 0, dilation = 1;
  int64_t output = 0; // output size (with ceil_mode when set)

  int64_t extent() const { return dilation * (kernel - 1) + 1; }
  // Position in the input of kernel tap `tap` of output `o` (negative or >= input: padding).
  int64_t position(int64_t o, int64_t tap) const { return o * stride + tap * dilation - pad; }
  // The kernel taps that read the input for at least one output. A tap that only ever reads
  // padding adds nothing to a sum and never wins a max, so the unrolled forms skip it: a
  // kernel larger than its input (EfficientNet's pooler: kernel 1280 over a 2x2 map) costs
  // what the input costs, not kernel^2.
  std::vector<int64_t> liveTaps() const;
  // Padding the live taps reach before / after the input (PyTorch clips ceil_mode windows
  // that run past the padding; floor mode drops trailing rows).
  int64_t padBefore() const;
  int64_t padAfter() const;
  // One output whose live taps read every input element once: the window is a reduction of
  // the whole axis.
  bool isGlobal() const;
};

// PyTorch's pooling_output_shape: floor or ceil of the window count; a ceil_mode window must
// start inside the input or its left padding.
int64_t pooledSize(int64_t input, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode);

// An int[N] argument as N ints: an int, or a list of 1 (repeated) or N; an empty list or None
// gives `fallback`. nullopt when the argument is symbolic or of another length.
std::optional<std::vector<int64_t>> intsArg(const Node &node, std::string_view name, std::size_t count,
                                            std::vector<int64_t> fallback);

// The H and W axes of a 2-d pooling node (max_pool2d, avg_pool2d forms): kernel_size, stride
// (empty: the kernel), padding, dilation (when the op has it) and ceil_mode, over the last two
// dims of `input`. nullopt when they are not static.
std::optional<std::array<WindowAxis, 2>> poolAxes(const Node &node, const Value *input);

// Whether ceil_mode adds a window that floor mode would not.
bool hasCeilWindow(const WindowAxis &axis);

// The input padded for the unrolled windows of `axes` (over its last two dims) with `fill`:
// padBefore() before, padAfter() after. The input itself when no padding is needed.
Value *padForWindows(Builder &b, Value *input, const std::array<WindowAxis, 2> &axes, double fill);

// The slice of `padded` (from padForWindows) that kernel tap `tap` of axis `axis` (0: H,
// 1: W, the last two dims) reads: elements tap * dilation + o * stride. Slicing H for a row
// of taps and then W for each tap gives the tap's [.., OH, OW] slice.
Value *tapSlice(Builder &b, Value *padded, const std::array<WindowAxis, 2> &axes, int64_t axis, int64_t tap);

enum class WindowReduction { Sum, Max };

// Every window of `axes` over the last two dims of `input` summed or maximised: [.., OH, OW].
// A rectangle's sum (max) is the sum (max) over its rows of the sums (maxima) over its
// columns, so the rewrite reduces W over its live taps and then H over its live taps:
// kernel_h + kernel_w slices instead of kernel_h * kernel_w. A global axis is one reduction
// over the unpadded input. Padding is zeros for Sum and -inf for Max, which never change the
// result.
Value *reduceWindows(Builder &b, Value *input, const std::array<WindowAxis, 2> &axes, WindowReduction reduction);

// A constant of `dtype` with shape [output_h, output_w] holding values(oh, ow).
template <typename T, typename F>
Value *perPositionConstant(Builder &b, const std::string &suffix, DType dtype, const std::array<WindowAxis, 2> &axes,
                           F values) {
  std::vector<T> data;
  data.reserve(static_cast<std::size_t>(axes[0].output * axes[1].output));
  for (int64_t oh = 0; oh < axes[0].output; ++oh)
    for (int64_t ow = 0; ow < axes[1].output; ++ow)
      data.push_back(static_cast<T>(values(oh, ow)));
  return b.constant(
      std::make_shared<const TensorData>(TensorData::fromVector(dtype, {axes[0].output, axes[1].output}, data)),
      "_" + suffix);
}

} // namespace tico::decompose
