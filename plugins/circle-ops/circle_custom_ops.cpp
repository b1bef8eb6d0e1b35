// circle_custom:: -> circle:: (see circle_custom_ops.h). Each mapping states the semantics of
// the original op as its eager kernel and its serializer define them:
//
//   conv2d, conv2d.padding         NHWC input, OHWI weight; groups must be 1. The string
//                                  padding is TFLite's: 'same' pads total = max((ceil(in / s)
//                                  - 1) * s + d * (k - 1) + 1 - in, 0), half before (floor),
//                                  also with a stride; case-insensitive
//   depthwise_conv2d(.padding)     NHWC input, [1, KH, KW, C*M] weight; groups = C
//   transpose_conv                 NHWC input, OHWI weight (O = output channels); groups 1,
//                                  and no dilation (TRANSPOSE_CONV has none; the original's
//                                  serializer drops it silently)
//   maxpool2d, avgpool2d           NHWC pooling with PyTorch's attributes (None: defaults;
//                                  stride None or [] = the kernel)
//   instance_norm                  statistics of the input always (use_input_stats, the
//                                  running statistics and momentum are ignored, as its kernel
//                                  ignores them)
//   prelu                          weight of 1 or C values broadcast along the last dim
//   resize_nearest_neighbor        RESIZE_NEAREST_NEIGHBOR without align_corners or half-pixel
//                                  centres (what the serializer writes; the eager kernel
//                                  indexes size[1], size[2] of the [H, W] size and fails)
//   resize_bilinear                RESIZE_BILINEAR with both flags (not both set)
//   rms_norm, attention, shape, gather_nd   the circle:: ops of the same name
//   mx_fake_quantize, quantize_mx, dequantize_mx   no mapping: MX quantization
#include "circle_custom_ops.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace tico::circle_ops {

const std::array<std::string_view, 18> kCircleCustomSchemas = {
    "circle_custom::resize_nearest_neighbor(Tensor input_, SymInt[] size) -> Tensor",
    "circle_custom::resize_bilinear(Tensor input_, SymInt[] size, bool align_corners=False, "
    "bool half_pixel_centers=False) -> Tensor",
    "circle_custom::prelu(Tensor input_, Tensor weight) -> Tensor",
    "circle_custom::conv2d(Tensor input_, Tensor weight, Tensor? bias=None, SymInt[]? stride=None, "
    "SymInt[]? padding=None, SymInt[]? dilation=None, SymInt? groups=None) -> Tensor",
    "circle_custom::conv2d.padding(Tensor input_, Tensor weight, Tensor? bias=None, SymInt[]? stride=None, "
    "str? padding=None, SymInt[]? dilation=None, SymInt? groups=None) -> Tensor",
    "circle_custom::depthwise_conv2d(Tensor input_, Tensor weight, Tensor? bias=None, SymInt[]? stride=None, "
    "SymInt[]? padding=None, SymInt[]? dilation=None, SymInt? groups=None) -> Tensor",
    "circle_custom::depthwise_conv2d.padding(Tensor input_, Tensor weight, Tensor? bias=None, "
    "SymInt[]? stride=None, str? padding=None, SymInt[]? dilation=None, SymInt? groups=None) -> Tensor",
    "circle_custom::transpose_conv(Tensor input_, Tensor weight, Tensor? bias=None, SymInt[]? stride=None, "
    "SymInt[]? padding=None, SymInt[]? output_padding=None, SymInt? groups=None, SymInt[]? dilation=None) "
    "-> Tensor",
    "circle_custom::maxpool2d(Tensor input_, SymInt[] kernel_size, SymInt[]? stride=None, "
    "SymInt[]? padding=None, SymInt[]? dilation=None, bool? ceil_mode=None) -> Tensor",
    "circle_custom::avgpool2d(Tensor input_, SymInt[] kernel_size, SymInt[]? stride=None, "
    "SymInt[]? padding=None, bool? ceil_mode=None, bool? count_include_pad=None, "
    "SymInt? divisor_override=None) -> Tensor",
    "circle_custom::instance_norm(Tensor input_, Tensor? weight=None, Tensor? bias=None, "
    "Tensor? running_mean=None, Tensor? running_var=None, bool use_input_stats=True, float momentum=0.1, "
    "float eps=1e-05, bool cudnn_enabled=False) -> Tensor",
    "circle_custom::mx_fake_quantize(Tensor input_, str elem_format, SymInt axis, "
    "str shared_exp_method=\"max\", str round=\"nearest\") -> Tensor",
    "circle_custom::quantize_mx(Tensor input_, str elem_format, SymInt axis, str shared_exp_method=\"max\", "
    "str round=\"nearest\") -> Tensor",
    "circle_custom::dequantize_mx(Tensor input_, str elem_format, SymInt axis, str shared_exp_method=\"max\", "
    "str round=\"nearest\") -> Tensor",
    "circle_custom::rms_norm(Tensor hidden_states, Tensor weight, float eps=1e-06) -> Tensor",
    "circle_custom::attention(Tensor hidden_states, Tensor wq, Tensor wk, Tensor wv, Tensor wo, "
    "Tensor position_cos, Tensor position_sin, Tensor attention_mask, Tensor past_key, Tensor past_value, "
    "Tensor cache_position) -> Tensor",
    "circle_custom::shape(Tensor input_) -> Tensor",
    "circle_custom::gather_nd(Tensor params, Tensor indices) -> Tensor",
};

namespace {

using Result = std::variant<CircleCall, std::string>;

// Reasons (the strings returned instead of a CircleCall) name the attribute and why, not the
// op: the unsupported-op report and the evaluator's errors already name the node and op.

std::string intsText(const Argument &a) {
  if (a.isInt())
    return std::to_string(a.asInt());
  if (!a.isIntList())
    return "(given at run time)";
  std::string text = "[";
  for (int64_t v : a.asInts())
    text += (text.size() > 1 ? ", " : "") + std::to_string(v);
  return text + "]";
}

// An attribute the original leaves None by default: the argument itself, or `fallback`.
Argument orDefault(const Node &node, std::string_view name, Argument fallback) {
  const Argument *a = node.findArg(name);
  return a == nullptr || a->isNone() ? std::move(fallback) : *a;
}

// The static int of an `SymInt?` argument; nullopt for None; `symbolic` set for a SymInt value.
std::optional<int64_t> optionalInt(const Node &node, std::string_view name, bool &symbolic) {
  symbolic = false;
  const Argument *a = node.findArg(name);
  if (a == nullptr || a->isNone())
    return std::nullopt;
  if (a->isInt())
    return a->asInt();
  symbolic = true;
  return std::nullopt;
}

// Whether an int-list argument is None or lists only `value` (a single int counts too).
bool allEqual(const Node &node, std::string_view name, int64_t value) {
  const Argument *a = node.findArg(name);
  if (a == nullptr || a->isNone())
    return true;
  if (a->isInt())
    return a->asInt() == value;
  if (a->isIntList()) {
    const auto &v = a->asInts();
    return std::all_of(v.begin(), v.end(), [value](int64_t x) { return x == value; });
  }
  return false;
}

CircleCall call(std::string name, std::string overload, std::vector<NamedArg> args) {
  return CircleCall{OpKey("circle", std::move(name), std::move(overload)), std::move(args)};
}

// The shared attributes of the convolutions: input, weight, bias, stride, padding, dilation.
std::vector<NamedArg> convArgs(const Node &node, Argument padding) {
  return {{"input", node.arg("input_")},
          {"weight", node.arg("weight")},
          {"bias", orDefault(node, "bias", Argument::none())},
          {"stride", orDefault(node, "stride", Argument::ints({1, 1}))},
          {"padding", std::move(padding)},
          {"dilation", orDefault(node, "dilation", Argument::ints({1, 1}))}};
}

// The padding argument: explicit ints, or the mode string in lower case ('valid' when None).
std::variant<Argument, std::string> convPadding(const Node &node, bool string_mode) {
  if (!string_mode)
    return orDefault(node, "padding", Argument::ints({0, 0}));
  const Argument *a = node.findArg("padding");
  if (a == nullptr || a->isNone())
    return Argument::string("valid");
  std::string mode = a->asString();
  std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::tolower(c); });
  if (mode != "same" && mode != "valid")
    return "padding '" + a->asString() + "': the original defines 'same' and 'valid' only";
  return Argument::string(mode);
}

Result conv2d(const Node &node, bool string_mode) {
  bool symbolic = false;
  std::optional<int64_t> groups = optionalInt(node, "groups", symbolic);
  if (symbolic || (groups && *groups != 1))
    return "groups " + (symbolic ? std::string("given at run time") : std::to_string(*groups)) +
           ": the original defines this op for groups=1 only (its grouped convolutions are depthwise_conv2d)";
  auto padding = convPadding(node, string_mode);
  if (auto *reason = std::get_if<std::string>(&padding))
    return *reason;
  return call("conv2d", string_mode ? "padding" : "default", convArgs(node, std::get<Argument>(padding)));
}

Result depthwiseConv2d(const Node &node, bool string_mode) {
  const Value *x = node.input("input_");
  bool symbolic = false;
  std::optional<int64_t> groups = optionalInt(node, "groups", symbolic);
  if (x->rank() != 4 || x->shape()[3].isSymbolic())
    return "a depthwise convolution needs an NHWC input with a static channel count";
  const int64_t channels = x->shape()[3].value();
  if (!groups || *groups != channels)
    return "groups " + (groups ? std::to_string(*groups) : std::string(symbolic ? "given at run time" : "None")) +
           ": a depthwise convolution has one group per input channel (" + std::to_string(channels) + ")";
  auto padding = convPadding(node, string_mode);
  if (auto *reason = std::get_if<std::string>(&padding))
    return *reason;
  return call("depthwise_conv2d", string_mode ? "padding" : "default", convArgs(node, std::get<Argument>(padding)));
}

Result transposeConv(const Node &node) {
  bool symbolic = false;
  std::optional<int64_t> groups = optionalInt(node, "groups", symbolic);
  if (symbolic || (groups && *groups != 1))
    return "groups " + (symbolic ? std::string("given at run time") : std::to_string(*groups)) +
           ": the original defines this op for groups=1 only";
  if (!allEqual(node, "dilation", 1))
    return "dilation " + intsText(node.arg("dilation")) +
           ": Circle's TRANSPOSE_CONV has no dilation (the original's serializer drops it)";
  return call("transpose_conv", "default",
              {{"input", node.arg("input_")},
               {"weight", node.arg("weight")},
               {"bias", orDefault(node, "bias", Argument::none())},
               {"stride", orDefault(node, "stride", Argument::ints({1, 1}))},
               {"padding", orDefault(node, "padding", Argument::ints({0, 0}))},
               {"output_padding", orDefault(node, "output_padding", Argument::ints({0, 0}))}});
}

Result maxPool2d(const Node &node) {
  return call("maxpool2d", "default",
              {{"input", node.arg("input_")},
               {"kernel_size", node.arg("kernel_size")},
               {"stride", orDefault(node, "stride", Argument::ints({}))},
               {"padding", orDefault(node, "padding", Argument::ints({0, 0}))},
               {"dilation", orDefault(node, "dilation", Argument::ints({1, 1}))},
               {"ceil_mode", orDefault(node, "ceil_mode", Argument::boolean(false))}});
}

Result avgPool2d(const Node &node) {
  return call("avgpool2d", "default",
              {{"input", node.arg("input_")},
               {"kernel_size", node.arg("kernel_size")},
               {"stride", orDefault(node, "stride", Argument::ints({}))},
               {"padding", orDefault(node, "padding", Argument::ints({0, 0}))},
               {"ceil_mode", orDefault(node, "ceil_mode", Argument::boolean(false))},
               {"count_include_pad", orDefault(node, "count_include_pad", Argument::boolean(true))},
               {"divisor_override", orDefault(node, "divisor_override", Argument::none())}});
}

Result resizeBilinear(const Node &node) {
  const Argument &align = node.arg("align_corners");
  const Argument &half = node.arg("half_pixel_centers");
  if (align.asBool() && half.asBool())
    return "align_corners and half_pixel_centers both set: the original refuses the combination (RESIZE_BILINEAR "
           "takes one of them)";
  return call("resize_bilinear", "default",
              {{"input", node.arg("input_")}, {"size", node.arg("size")}, {"align_corners", align},
               {"half_pixel_centers", half}});
}

std::string mxReason(const Node &node) {
  std::string format = node.arg("elem_format").kind() == Argument::Kind::String ? node.arg("elem_format").asString() : "?";
  return "MX block quantization (element format '" + format +
         "'): no Circle operator; the pipeline's fake-quantize and quantize stages (decompose-fake-quantize, "
         "fold-mx-quant-ops) make it MX-quantized tensors (mxint8, mxfp4), as the original does";
}

} // namespace

std::variant<CircleCall, std::string> mapCircleCustomOp(const Node &node) {
  const OpKey &op = node.op();
  if (!isCircleCustom(op))
    return node.op().str() + " is not a circle_custom op";
  const std::string key = op.name + "." + op.overload;
  if (key == "conv2d.default" || key == "conv2d.padding")
    return conv2d(node, op.overload == "padding");
  if (key == "depthwise_conv2d.default" || key == "depthwise_conv2d.padding")
    return depthwiseConv2d(node, op.overload == "padding");
  if (key == "transpose_conv.default")
    return transposeConv(node);
  if (key == "maxpool2d.default")
    return maxPool2d(node);
  if (key == "avgpool2d.default")
    return avgPool2d(node);
  if (key == "instance_norm.default")
    return call("instance_norm", "default",
                {{"input", node.arg("input_")},
                 {"weight", node.arg("weight")},
                 {"bias", node.arg("bias")},
                 {"eps", node.arg("eps")}});
  if (key == "prelu.default")
    return call("prelu", "default", {{"input", node.arg("input_")}, {"weight", node.arg("weight")}});
  if (key == "resize_nearest_neighbor.default")
    return call("resize_nearest_neighbor", "default",
                {{"input", node.arg("input_")},
                 {"size", node.arg("size")},
                 {"align_corners", Argument::boolean(false)},
                 {"half_pixel_centers", Argument::boolean(false)}});
  if (key == "resize_bilinear.default")
    return resizeBilinear(node);
  if (key == "rms_norm.default")
    return call("rms_norm", "default",
                {{"input", node.arg("hidden_states")}, {"weight", node.arg("weight")}, {"eps", node.arg("eps")}});
  if (key == "attention.default") {
    CircleCall c = call("attention", "default", {});
    for (const NamedArg &a : node.args())
      c.args.push_back(a); // the same arguments under the same names
    return c;
  }
  if (key == "shape.default")
    return call("shape", "default", {{"input", node.arg("input_")}});
  if (key == "gather_nd.default")
    return call("gather_nd", "default", {{"params", node.arg("params")}, {"indices", node.arg("indices")}});
  if (key == "mx_fake_quantize.default" || key == "quantize_mx.default" || key == "dequantize_mx.default")
    return mxReason(node);
  return node.op().str() + " is not an op of the original converter's circle_custom namespace (tico==0.3.0)";
}

} // namespace tico::circle_ops
