// circle:: ops that are PyTorch operators on channels-last data (legalize-pre-defined-layout-
// operators creates them): convolutions, transposed convolution, pooling, instance norm and
// per-channel PReLU. Their attributes are PyTorch's (the lowering reproduces PyTorch's
// padding, count_include_pad, ceil_mode, dilation, output_padding exactly or rejects the node),
// so each runs the ATen op it replaced on the data and weights moved back to PyTorch's layout.
// The padding modes of conv2d.padding / depthwise_conv2d.padding are TFLite's (what CONV_2D
// computes; 'same' is PyTorch's 'same' for stride 1 and also defined for larger strides), so
// they run as an explicit zero pad and an unpadded convolution.
//
//   input  NHWC -> NCHW                  output NCHW -> NHWC
//   conv2d weight           OHWI          -> OIHW
//   depthwise_conv2d weight [1, H, W, C*M] -> [C*M, 1, H, W], groups = C
//   transpose_conv weight   OHWI (O = out) -> IOHW (conv_transpose2d's [in, out, H, W])
#include "circle_ops.h"

#include <algorithm>

namespace tico::aten_eval {
namespace {

at::Tensor nhwcInput(CircleArgs &args, std::string_view name = "input") {
  at::Tensor x = args.tensor(name);
  if (x.dim() != 4)
    throw args.error("'" + std::string(name) + "' must be NHWC (rank 4), got rank " + std::to_string(x.dim()));
  return x;
}

at::Tensor toChannelsFirst(const at::Tensor &nhwc) { return nhwc.permute({0, 3, 1, 2}); }
at::Tensor toChannelsLast(const at::Tensor &nchw) { return nchw.permute({0, 2, 3, 1}); }

at::Tensor rank4Weight(CircleArgs &args) {
  at::Tensor w = args.tensor("weight");
  if (w.dim() != 4)
    throw args.error("'weight' must have rank 4, got rank " + std::to_string(w.dim()));
  return w;
}

// [1, KH, KW, C*M] -> [C*M, 1, KH, KW]; the input's channel count is the group count.
at::Tensor depthwiseWeight(CircleArgs &args, const at::Tensor &x) {
  at::Tensor w = rank4Weight(args);
  if (w.size(0) != 1 || x.size(3) == 0 || w.size(3) % x.size(3) != 0)
    throw args.error("depthwise weight [1, KH, KW, C*M] does not fit an input of " + std::to_string(x.size(3)) +
                     " channels");
  return w.permute({3, 0, 1, 2});
}

// The NCHW input padded as TFLite pads for `mode`: nothing for 'valid'; for 'same', per spatial
// dim total = max((ceil(in / s) - 1) * s + d * (k - 1) + 1 - in, 0), total / 2 before.
at::Tensor paddedForMode(CircleArgs &args, const at::Tensor &x, const at::Tensor &w, const std::vector<int64_t> &stride,
                         const std::vector<int64_t> &dilation) {
  const std::string mode = args.string("padding");
  if (mode == "valid")
    return x;
  if (mode != "same")
    throw args.error("padding mode '" + mode + "' is neither 'same' nor 'valid'");
  std::vector<int64_t> pads(4, 0); // constant_pad_nd order: W before/after, H before/after
  for (std::size_t i = 0; i < 2; ++i) {
    const int64_t in = x.size(static_cast<int64_t>(2 + i)), k = w.size(static_cast<int64_t>(2 + i));
    if (stride[i] <= 0)
      throw args.error("stride must be positive");
    const int64_t out = (in + stride[i] - 1) / stride[i];
    const int64_t total = std::max<int64_t>((out - 1) * stride[i] + dilation[i] * (k - 1) + 1 - in, 0);
    pads[2 * (1 - i)] = total / 2;
    pads[2 * (1 - i) + 1] = total - total / 2;
  }
  return at::constant_pad_nd(x, pads, 0);
}

// An int[2] attribute: two values, or one for both.
std::vector<int64_t> pair(CircleArgs &args, std::string_view name) {
  std::vector<int64_t> v = args.ints(name, 2);
  if (v.size() == 1)
    v.push_back(v[0]);
  if (v.size() != 2)
    throw args.error("'" + std::string(name) + "' must have 2 values, got " + std::to_string(v.size()));
  return v;
}

at::Tensor conv2dWithMode(CircleArgs &args, const at::Tensor &nhwc, const at::Tensor &w, int64_t groups) {
  const std::vector<int64_t> stride = pair(args, "stride"), dilation = pair(args, "dilation");
  at::Tensor x = paddedForMode(args, toChannelsFirst(nhwc), w, stride, dilation);
  const std::vector<int64_t> no_padding = {0, 0};
  return toChannelsLast(at::conv2d(x, w, args.optionalTensor("bias"), stride, no_padding, dilation, groups));
}

} // namespace

at::Tensor circleConv2d(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = rank4Weight(args).permute({0, 3, 1, 2});
  return toChannelsLast(at::conv2d(toChannelsFirst(x), w, args.optionalTensor("bias"), args.ints("stride", 2),
                                   args.ints("padding", 2), args.ints("dilation", 2), 1));
}

at::Tensor circleConv2dPadding(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  return conv2dWithMode(args, x, rank4Weight(args).permute({0, 3, 1, 2}), 1);
}

at::Tensor circleDepthwiseConv2d(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = depthwiseWeight(args, x);
  return toChannelsLast(at::conv2d(toChannelsFirst(x), w, args.optionalTensor("bias"), args.ints("stride", 2),
                                   args.ints("padding", 2), args.ints("dilation", 2), x.size(3)));
}

at::Tensor circleDepthwiseConv2dPadding(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  return conv2dWithMode(args, x, depthwiseWeight(args, x), x.size(3));
}

at::Tensor circleTransposeConv(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = rank4Weight(args).permute({3, 0, 1, 2});
  return toChannelsLast(at::conv_transpose2d(toChannelsFirst(x), w, args.optionalTensor("bias"),
                                             args.ints("stride", 2), args.ints("padding", 2),
                                             args.ints("output_padding", 2), 1, 1));
}

at::Tensor circleMaxPool2d(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  return toChannelsLast(at::max_pool2d(toChannelsFirst(x), args.ints("kernel_size", 2), args.ints("stride", 2),
                                       args.ints("padding", 2), args.ints("dilation", 2),
                                       args.boolean("ceil_mode")));
}

at::Tensor circleAvgPool2d(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  return toChannelsLast(at::avg_pool2d(toChannelsFirst(x), args.ints("kernel_size", 2), args.ints("stride", 2),
                                       args.ints("padding", 2), args.boolean("ceil_mode"),
                                       args.boolean("count_include_pad"), args.optionalInt("divisor_override")));
}

// Statistics over every dim but the first (batch) and the last (channels).
at::Tensor circleInstanceNorm(CircleArgs &args) {
  at::Tensor x = args.tensor("input");
  if (x.dim() < 3)
    throw args.error("'input' must be [N, spatial..., C] with at least one spatial dim, got rank " +
                     std::to_string(x.dim()));
  std::vector<int64_t> to_first = {0, x.dim() - 1}, to_last = {0};
  for (int64_t d = 1; d + 1 < x.dim(); ++d) {
    to_first.push_back(d);
    to_last.push_back(d + 1);
  }
  to_last.push_back(1);
  at::Tensor y = at::instance_norm(x.permute(to_first), args.optionalTensor("weight"), args.optionalTensor("bias"),
                                   std::nullopt, std::nullopt, /*use_input_stats=*/true, /*momentum=*/0.0,
                                   args.real("eps"), /*cudnn_enabled=*/false);
  return y.permute(to_last);
}

// x >= 0 ? x : weight * x, the weight broadcast from the right (channels last).
at::Tensor circlePrelu(CircleArgs &args) {
  at::Tensor x = args.tensor("input");
  at::Tensor w = args.tensor("weight");
  return at::where(x >= 0, x, x * w);
}

} // namespace tico::aten_eval
