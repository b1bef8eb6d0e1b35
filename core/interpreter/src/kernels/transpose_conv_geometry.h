// The shape arithmetic of TRANSPOSE_CONV (inputs: output_shape int32[4], filter [out, kh, kw, in],
// NHWC input, optional bias [out]), shared by the float and the quantized kernels so that both
// accept the same models and reject the others with the same messages. Padding follows TFLite:
// SAME pads (in - 1) * stride + k - out in total, half before.
#pragma once

#include "kernel.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tico::interp {

struct TransposeConvGeometry {
  int64_t batch = 0, height = 0, width = 0, in_channels = 0; // the NHWC input
  int64_t out_channels = 0, kh = 0, kw = 0, out_h = 0, out_w = 0;
  int64_t sh = 1, sw = 1, pad_y = 0, pad_x = 0;
  Shape out_shape;
};

inline TransposeConvGeometry transposeConvGeometry(const KernelContext &ctx) {
  const auto &options = ctx.options<circle::TransposeConvOptionsT>();
  const Tensor &filter = ctx.input(1);
  const Tensor &input = ctx.input(2);
  check(input.rank() == 4, "input must be NHWC (rank 4), got shape " + shapeString(input.shape));
  check(filter.rank() == 4, "filter must be [out, kh, kw, in], got shape " + shapeString(filter.shape));
  const std::vector<int64_t> out_dims = integerValues(ctx.input(0));
  check(out_dims.size() == 4, "output_shape must have 4 values, got " + std::to_string(out_dims.size()));
  TransposeConvGeometry g;
  g.batch = input.dim(0), g.height = input.dim(1), g.width = input.dim(2), g.in_channels = input.dim(3);
  g.out_channels = filter.dim(0), g.kh = filter.dim(1), g.kw = filter.dim(2);
  check(filter.dim(3) == g.in_channels, "filter " + shapeString(filter.shape) + " expects " +
                                            std::to_string(filter.dim(3)) + " input channels, input has " +
                                            std::to_string(g.in_channels));
  check(out_dims[0] == g.batch && out_dims[3] == g.out_channels,
        "output_shape " + shapeString(out_dims) + " disagrees with batch " + std::to_string(g.batch) +
            " / filter outputs " + std::to_string(g.out_channels));
  g.out_h = out_dims[1], g.out_w = out_dims[2];
  g.sh = options.stride_h, g.sw = options.stride_w;
  check(g.sh > 0 && g.sw > 0, "strides must be positive");
  if (options.padding == circle::Padding::SAME) {
    g.pad_y = std::max<int64_t>((g.height - 1) * g.sh + g.kh - g.out_h, 0) / 2;
    g.pad_x = std::max<int64_t>((g.width - 1) * g.sw + g.kw - g.out_w, 0) / 2;
  }
  g.out_shape = Shape(out_dims.begin(), out_dims.end());
  return g;
}

} // namespace tico::interp
