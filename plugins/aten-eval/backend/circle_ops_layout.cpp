// circle:: ops that are PyTorch operators on channels-last data (legalize-pre-defined-layout-
// operators creates them): convolutions, transposed convolution, pooling, instance norm and
// per-channel PReLU. Their attributes are PyTorch's (the lowering reproduces PyTorch's
// padding, count_include_pad, ceil_mode, dilation, output_padding exactly or rejects the node),
// so each runs the ATen op it replaced on the data and weights moved back to PyTorch's layout:
//
//   input  NHWC -> NCHW                  output NCHW -> NHWC
//   conv2d weight           OHWI          -> OIHW
//   depthwise_conv2d weight [1, H, W, C*M] -> [C*M, 1, H, W], groups = C
//   transpose_conv weight   OHWI (O = out) -> IOHW (conv_transpose2d's [in, out, H, W])
#include "circle_ops.h"

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

} // namespace

at::Tensor circleConv2d(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = rank4Weight(args).permute({0, 3, 1, 2});
  return toChannelsLast(at::conv2d(toChannelsFirst(x), w, args.optionalTensor("bias"), args.ints("stride", 2),
                                   args.ints("padding", 2), args.ints("dilation", 2), 1));
}

at::Tensor circleConv2dPadding(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = rank4Weight(args).permute({0, 3, 1, 2});
  return toChannelsLast(at::conv2d(toChannelsFirst(x), w, args.optionalTensor("bias"), args.ints("stride", 2),
                                   args.string("padding"), args.ints("dilation", 2), 1));
}

at::Tensor circleDepthwiseConv2d(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = depthwiseWeight(args, x);
  return toChannelsLast(at::conv2d(toChannelsFirst(x), w, args.optionalTensor("bias"), args.ints("stride", 2),
                                   args.ints("padding", 2), args.ints("dilation", 2), x.size(3)));
}

at::Tensor circleDepthwiseConv2dPadding(CircleArgs &args) {
  at::Tensor x = nhwcInput(args);
  at::Tensor w = depthwiseWeight(args, x);
  return toChannelsLast(at::conv2d(toChannelsFirst(x), w, args.optionalTensor("bias"), args.ints("stride", 2),
                                   args.string("padding"), args.ints("dilation", 2), x.size(3)));
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
