// The shape arithmetic of CONV_2D and DEPTHWISE_CONV_2D (NHWC input; OHWI filter, or
// [1, kh, kw, C * multiplier] for depthwise), shared by the float and the quantized kernels so
// that both accept the same models and reject the others with the same messages.
#pragma once

#include "kernels/window.h"

#include <string>

namespace tico::interp {

struct ConvGeometry {
  int64_t batch = 0, height = 0, width = 0, channels = 0; // the NHWC input
  int64_t out_channels = 0, kh = 0, kw = 0;
  int64_t group_channels = 0;        // CONV_2D: input channels each group reads (filter dim 3)
  int64_t groups = 1, group_out = 0; // CONV_2D: groups = channels / group_channels
  int64_t multiplier = 1;            // DEPTHWISE_CONV_2D: output channels per input channel
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  WindowAxis wy, wx;
};

namespace detail {
template <typename Options> void convWindows(ConvGeometry &g, const Options &options) {
  g.sh = options.stride_h, g.sw = options.stride_w;
  g.dh = options.dilation_h_factor, g.dw = options.dilation_w_factor;
  g.wy = windowAxis(g.height, g.kh, g.sh, g.dh, options.padding, "height");
  g.wx = windowAxis(g.width, g.kw, g.sw, g.dw, options.padding, "width");
}

inline void nhwcInput(ConvGeometry &g, const Tensor &input) {
  check(input.rank() == 4, "input must be NHWC (rank 4), got shape " + shapeString(input.shape));
  g.batch = input.dim(0), g.height = input.dim(1), g.width = input.dim(2), g.channels = input.dim(3);
}
} // namespace detail

inline ConvGeometry conv2dGeometry(const Tensor &input, const Tensor &filter, const circle::Conv2DOptionsT &options) {
  ConvGeometry g;
  detail::nhwcInput(g, input);
  check(filter.rank() == 4, "filter must be OHWI (rank 4), got shape " + shapeString(filter.shape));
  g.out_channels = filter.dim(0), g.kh = filter.dim(1), g.kw = filter.dim(2), g.group_channels = filter.dim(3);
  check(g.group_channels > 0 && g.channels % g.group_channels == 0,
        "filter " + shapeString(filter.shape) + " has " + std::to_string(g.group_channels) +
            " input channels, which does not divide the input's " + std::to_string(g.channels));
  g.groups = g.channels / g.group_channels;
  check(g.out_channels % g.groups == 0, "output channels (" + std::to_string(g.out_channels) +
                                            ") are not a multiple of the group count " + std::to_string(g.groups));
  g.group_out = g.out_channels / g.groups;
  detail::convWindows(g, options);
  return g;
}

inline ConvGeometry depthwiseGeometry(const Tensor &input, const Tensor &filter,
                                      const circle::DepthwiseConv2DOptionsT &options) {
  ConvGeometry g;
  detail::nhwcInput(g, input);
  check(filter.rank() == 4 && filter.dim(0) == 1,
        "filter must be [1, kh, kw, channels], got shape " + shapeString(filter.shape));
  g.kh = filter.dim(1), g.kw = filter.dim(2), g.out_channels = filter.dim(3);
  check(g.channels > 0 && g.out_channels % g.channels == 0, "filter has " + std::to_string(g.out_channels) +
                                                                " channels, not a multiple of the input's " +
                                                                std::to_string(g.channels));
  g.multiplier = g.out_channels / g.channels;
  check(options.depth_multiplier <= 0 || options.depth_multiplier == g.multiplier,
        "depth_multiplier " + std::to_string(options.depth_multiplier) + " disagrees with the filter (" +
            std::to_string(g.multiplier) + ")");
  detail::convWindows(g, options);
  return g;
}

} // namespace tico::interp
