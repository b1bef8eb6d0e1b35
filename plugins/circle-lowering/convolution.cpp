// conv2d (int and string padding) and convolution -> CONV_2D / DEPTHWISE_CONV_2D; the
// channels-last circle::conv2d / circle::depthwise_conv2d map onto the same operators directly.
//
// Circle convolutions are NHWC, so an ATen convolution's input goes through TRANSPOSE
// [0,2,3,1] and its result back through TRANSPOSE [0,3,1,2]. Weights are rearranged as
// zero-copy views of the same storage (OIHW -> OHWI for CONV_2D, [O,1,H,W] -> [1,H,W,O] for
// DEPTHWISE_CONV_2D); computed weights get a TRANSPOSE instead. CONV_2D always receives a bias
// (zeros when PyTorch has none) because some Circle interpreters reject a convolution without
// one. Transposed convolutions are in transpose_conv.cpp; convolution.default dispatches there.
#include "convolution.h"
#include "lowerings.h"
#include "transpose_conv.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

namespace tico::lowering {

ConvAttrs decodeConvAttrs(const Node &node) {
  ConvAttrs a;
  a.stride = intList(node.arg("stride"), 2, "stride");
  // circle::transpose_conv has no dilation (TRANSPOSE_CONV cannot express one).
  if (const Argument *dilation = node.findArg("dilation"))
    a.dilation = intList(*dilation, 2, "dilation");
  else
    a.dilation = {1, 1};
  const Argument &padding = node.arg("padding");
  if (padding.kind() == Argument::Kind::String)
    a.padding_mode = padding.asString();
  else
    a.padding = intList(padding, 2, "padding");
  if (const Argument *op = node.findArg("output_padding"))
    a.output_padding = intList(*op, 2, "output_padding");
  else
    a.output_padding = {0, 0};
  if (const Argument *groups = node.findArg("groups"))
    a.groups = groups->asInt();
  return a;
}

std::string checkConvAttrs(const ConvAttrs &a) {
  if (!a.padding_mode.empty() && a.padding_mode != "same" && a.padding_mode != "valid")
    return "unknown padding mode '" + a.padding_mode + "'";
  for (int64_t s : a.stride)
    if (s <= 0)
      return "stride must be positive";
  for (int64_t d : a.dilation)
    if (d <= 0)
      return "dilation must be positive";
  for (int64_t p : a.padding)
    if (p < 0)
      return "negative padding is not supported";
  return {};
}

int32_t convBias(CircleEmitter &emit, const Argument &bias, DType dtype, int64_t channels, const std::string &base) {
  if (!bias.isNone())
    return biasTensor(emit, bias.asValue(), bias.asValue(), dtype, base + "_bias");
  return emit.constant(zeros(dtype, {channels}), base + "_zero_bias");
}

int32_t permutedWeight(CircleEmitter &emit, const Value *weight, const std::vector<int64_t> &perm,
                       const std::string &suffix, const std::string &base) {
  if (weight->isConstant())
    return emit.constant(permutedView(weight->constant(), perm), weight->name() + suffix);
  return emitTranspose(emit, emit.tensor(weight), weight->dtype(), weight->shape(), perm, base + "_weight" + suffix);
}

void emitNhwcConvolution(CircleEmitter &emit, const NhwcConv &conv, int32_t output, const std::string &base) {
  const ConvAttrs &a = conv.attrs;
  int32_t x = conv.input;
  circle::Padding padding = circle::Padding::VALID;
  if (a.padding_mode == "same") {
    padding = circle::Padding::SAME; // PyTorch's 'same' requires stride 1, where both agree
  } else if (a.padding_mode.empty()) {
    Window h{a.stride[0], a.dilation[0], conv.kernel_h, a.padding[0]};
    Window w{a.stride[1], a.dilation[1], conv.kernel_w, a.padding[1]};
    PaddingChoice choice = choosePadding(conv.input_shape[1], conv.input_shape[2], h, w);
    if (choice == PaddingChoice::Same)
      padding = circle::Padding::SAME;
    else if (choice == PaddingChoice::Explicit) {
      x = emitSpatialPad(emit, x, conv.dtype, conv.input_shape, a.padding[0], a.padding[1], nullptr, base);
      if (conv.input_quant != nullptr && x != conv.input)
        emit.setQuantization(x, *conv.input_quant); // PAD moves codes: fills with the zero point (real 0)
    }
  }
  if (conv.kind == ConvKind::Regular) {
    circle::Conv2DOptionsT options_;
    options_.padding = padding;
    options_.stride_h = toInt32(a.stride[0], "stride");
    options_.stride_w = toInt32(a.stride[1], "stride");
    options_.dilation_h_factor = toInt32(a.dilation[0], "dilation");
    options_.dilation_w_factor = toInt32(a.dilation[1], "dilation");
    emit.addOperator(circle::BuiltinOperator::CONV_2D, {x, conv.weight, conv.bias}, {output},
                     options(std::move(options_)));
    return;
  }
  circle::DepthwiseConv2DOptionsT options_;
  options_.padding = padding;
  options_.stride_h = toInt32(a.stride[0], "stride");
  options_.stride_w = toInt32(a.stride[1], "stride");
  options_.dilation_h_factor = toInt32(a.dilation[0], "dilation");
  options_.dilation_w_factor = toInt32(a.dilation[1], "dilation");
  options_.depth_multiplier = toInt32(conv.depth_multiplier, "depth multiplier");
  emit.addOperator(circle::BuiltinOperator::DEPTHWISE_CONV_2D, {x, conv.weight, conv.bias}, {output},
                   options(std::move(options_)));
}

namespace {

std::string checkFloatOperands(const Node &node, const char *what) {
  if (auto r = requireFloatOrQuantized(node.input(0), what); !r.empty())
    return r;
  if (auto r = requireFloatOrQuantized(node.input(1), what); !r.empty())
    return r;
  return quantizedOperands(node, what);
}

// conv2d / convolution on NCHW input with OIHW weights.
class Conv2d final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (isTransposedConvolution(node))
      return transposeConvUnsupported(node, false);
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    // The weight's rank tells the convolution's dimensionality (the input may be unbatched).
    if (weight->rank() == 3 || weight->rank() == 5)
      return std::to_string(weight->rank() - 2) +
             "-D convolution is rewritten to conv2d by the convert-conv1d-to-conv2d / convert-conv3d-to-conv2d "
             "passes (plugin circle-legalize); run them before lowering";
    if (input->rank() != 4 || weight->rank() != 4)
      return "only 2-D convolution of batched NCHW input is supported (input rank " + std::to_string(input->rank()) +
             ", weight rank " + std::to_string(weight->rank()) + ")";
    if (auto r = requireFloat(input, "CONV_2D"); !r.empty())
      return r + " (quantized convolutions are the circle:: NHWC ops legalize-pre-defined-layout-operators makes)";
    if (auto r = requireFloat(weight, "CONV_2D"); !r.empty())
      return r;
    ConvAttrs a = decodeConvAttrs(node);
    if (auto r = checkConvAttrs(a); !r.empty())
      return r;
    if (input->shape()[1].isSymbolic() || weight->shape()[0].isSymbolic() || weight->shape()[2].isSymbolic() ||
        weight->shape()[3].isSymbolic())
      return "channel counts and kernel sizes must be static";
    int64_t in_channels = input->shape()[1].value();
    int64_t out_channels = weight->shape()[0].value();
    if (a.groups != 1 && !(a.groups == in_channels && out_channels % in_channels == 0))
      return "grouped convolution with groups=" + std::to_string(a.groups) + " (in_channels " +
             std::to_string(in_channels) + ") is neither regular nor depthwise; the decompose-grouped-conv2d pass "
             "(plugin circle-legalize) splits it into per-group convolutions";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    if (isTransposedConvolution(node))
      return lowerTransposeConv(node, emit, false);
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    const Value *out = node.output();
    const std::string base = node.name();
    NhwcConv conv;
    conv.attrs = decodeConvAttrs(node);
    conv.dtype = input->dtype();
    int64_t in_channels = input->shape()[1].value();
    int64_t out_channels = weight->shape()[0].value();
    conv.kind = conv.attrs.groups == 1 ? ConvKind::Regular : ConvKind::Depthwise;
    conv.depth_multiplier = out_channels / in_channels;
    conv.kernel_h = weight->shape()[2].value();
    conv.kernel_w = weight->shape()[3].value();
    conv.input = emitTranspose(emit, emit.tensor(input), conv.dtype, input->shape(), {0, 2, 3, 1}, base + "_input_nhwc");
    conv.input_shape = permuteShape(input->shape(), {0, 2, 3, 1});
    conv.weight = conv.kind == ConvKind::Regular ? permutedWeight(emit, weight, {0, 2, 3, 1}, "_ohwi", base)
                                                 : permutedWeight(emit, weight, {1, 2, 3, 0}, "_1hwo", base);
    conv.bias = convBias(emit, node.arg("bias"), conv.dtype, out_channels, base);
    int32_t y = emit.newTensor(conv.dtype, permuteShape(out->shape(), {0, 2, 3, 1}), base + "_nhwc");
    emitNhwcConvolution(emit, conv, y, base);
    emitTransposeInto(emit, y, {0, 3, 1, 2}, emit.tensor(out), base + "_output_nchw");
  }
};

// circle::conv2d / circle::depthwise_conv2d: NHWC input, weights already channels-last.
class CircleConv2d final : public CheckedLowering {
public:
  explicit CircleConv2d(ConvKind kind) : kind_(kind) {}

  std::string check(const Node &node) const override {
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    if (input->rank() != 4 || weight->rank() != 4)
      return "circle convolutions take a rank-4 NHWC input and a rank-4 weight";
    if (auto r = checkFloatOperands(node, kind_ == ConvKind::Regular ? "CONV_2D" : "DEPTHWISE_CONV_2D"); !r.empty())
      return r;
    if (auto r = checkConvAttrs(decodeConvAttrs(node)); !r.empty())
      return r;
    for (std::size_t i = 0; i < 4; ++i)
      if (weight->shape()[i].isSymbolic())
        return "the weight shape must be static";
    if (input->shape()[3].isSymbolic())
      return "the channel count must be static";
    int64_t channels = input->shape()[3].value();
    if (kind_ == ConvKind::Regular && weight->shape()[3].value() != channels)
      return "the OHWI weight has " + std::to_string(weight->shape()[3].value()) + " input channels, the input " +
             std::to_string(channels);
    if (kind_ == ConvKind::Depthwise &&
        (weight->shape()[0].value() != 1 || weight->shape()[3].value() % channels != 0))
      return "the depthwise weight must be [1, KH, KW, C*M] for an input with C channels";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    NhwcConv conv;
    conv.kind = kind_;
    conv.attrs = decodeConvAttrs(node);
    conv.dtype = input->dtype();
    conv.input = emit.tensor(input);
    conv.input_shape = input->shape();
    conv.input_quant = input->quant();
    conv.weight = emit.tensor(weight);
    conv.kernel_h = weight->shape()[1].value();
    conv.kernel_w = weight->shape()[2].value();
    int64_t out_channels = kind_ == ConvKind::Regular ? weight->shape()[0].value() : weight->shape()[3].value();
    conv.depth_multiplier = out_channels / input->shape()[3].value();
    conv.bias = convBias(emit, node.arg("bias"), conv.dtype, out_channels, node.name());
    emitNhwcConvolution(emit, conv, emit.tensor(node.output()), node.name());
  }

private:
  ConvKind kind_;
};

} // namespace

void registerConvolution(Registrar &r) {
  // conv1d / conv3d are registered so that the report names the passes that rewrite them.
  registerFor(r, {ops::aten::conv2d_default, ops::aten::conv2d_padding, ops::aten::convolution_default, ops::aten::conv1d_default,
                  ops::aten::conv1d_padding, ops::aten::conv3d_default, ops::aten::conv3d_padding,
                  ops::aten::conv_transpose1d_default},
              "TRANSPOSE -> CONV_2D or DEPTHWISE_CONV_2D (+PAD) -> TRANSPOSE; transposed: TRANSPOSE_CONV",
              std::make_shared<Conv2d>());
  registerFor(r, {ops::circle::conv2d_default, ops::circle::conv2d_padding}, "CONV_2D (+PAD), NHWC",
              std::make_shared<CircleConv2d>(ConvKind::Regular));
  registerFor(r, {ops::circle::depthwise_conv2d_default, ops::circle::depthwise_conv2d_padding},
              "DEPTHWISE_CONV_2D (+PAD), NHWC", std::make_shared<CircleConv2d>(ConvKind::Depthwise));
}

} // namespace tico::lowering
