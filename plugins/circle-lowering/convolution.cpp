// conv2d (int and string padding) and convolution -> CONV_2D / DEPTHWISE_CONV_2D.
//
// Circle convolutions are NHWC, so the input goes through TRANSPOSE [0,2,3,1] and the result
// back through TRANSPOSE [0,3,1,2]. Weights are rearranged as zero-copy views of the same
// storage (OIHW -> OHWI for CONV_2D, [O,1,H,W] -> [1,H,W,O] for DEPTHWISE_CONV_2D); computed
// weights get a TRANSPOSE instead. CONV_2D always receives a bias (zeros when PyTorch has none)
// because some Circle interpreters reject a convolution without one.
#include "lowerings.h"
#include "pooling_geometry.h"
#include "support.h"

namespace tico::lowering {
namespace {

struct ConvParams {
  std::vector<int64_t> stride, dilation;
  std::vector<int64_t> padding; // explicit [ph, pw]; empty when `padding_mode` is set
  std::string padding_mode;     // "same" / "valid" for conv2d.padding
  int64_t groups = 1;
};

ConvParams decode(const Node &node) {
  ConvParams p;
  p.stride = intList(node.arg("stride"), 2, "stride");
  p.dilation = intList(node.arg("dilation"), 2, "dilation");
  const Argument &padding = node.arg("padding");
  if (padding.kind() == Argument::Kind::String)
    p.padding_mode = padding.asString();
  else
    p.padding = intList(padding, 2, "padding");
  p.groups = node.arg("groups").asInt();
  return p;
}

enum class Kind { Regular, Depthwise };

class Conv2d final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    if (const Argument *transposed = node.findArg("transposed"); transposed && transposed->asBool())
      return "transposed convolution is not covered by this lowering";
    if (input->rank() != 4 || weight->rank() != 4)
      return "only 2-D convolution of batched NCHW input is supported (input rank " + std::to_string(input->rank()) +
             ", weight rank " + std::to_string(weight->rank()) + ")";
    if (auto r = requireFloat(input, "CONV_2D"); !r.empty())
      return r;
    if (auto r = requireFloat(weight, "CONV_2D"); !r.empty())
      return r;
    ConvParams p = decode(node);
    if (p.stride.size() != 2 || p.dilation.size() != 2)
      return "expected 2-D stride and dilation";
    if (!p.padding_mode.empty() && p.padding_mode != "same" && p.padding_mode != "valid")
      return "unknown padding mode '" + p.padding_mode + "'";
    if (input->shape()[1].isSymbolic() || weight->shape()[0].isSymbolic() || weight->shape()[2].isSymbolic() ||
        weight->shape()[3].isSymbolic())
      return "channel counts and kernel sizes must be static";
    int64_t in_channels = input->shape()[1].value();
    int64_t out_channels = weight->shape()[0].value();
    if (p.groups != 1 && !(p.groups == in_channels && out_channels % in_channels == 0))
      return "grouped convolution with groups=" + std::to_string(p.groups) + " (in_channels " +
             std::to_string(in_channels) + ") is neither regular nor depthwise; it is not supported yet";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    const Value *out = node.output();
    const std::string base = node.name();
    ConvParams p = decode(node);
    int64_t in_channels = input->shape()[1].value();
    int64_t out_channels = weight->shape()[0].value();
    Kind kind = p.groups == 1 ? Kind::Regular : Kind::Depthwise;
    DType dtype = input->dtype();

    // Input NCHW -> NHWC, zero-padded explicitly when SAME/VALID cannot express the padding.
    int32_t x = emitTranspose(emit, emit.tensor(input), dtype, input->shape(), {0, 2, 3, 1}, base + "_input_nhwc");
    Shape x_shape = permuteShape(input->shape(), {0, 2, 3, 1});
    circle::Padding padding = circle::Padding::VALID;
    if (p.padding_mode == "same") {
      padding = circle::Padding::SAME; // PyTorch's 'same' requires stride 1, where both agree
    } else if (p.padding_mode.empty()) {
      Window h{p.stride[0], p.dilation[0], weight->shape()[2].value(), p.padding[0]};
      Window w{p.stride[1], p.dilation[1], weight->shape()[3].value(), p.padding[1]};
      PaddingChoice choice = choosePadding(input->shape()[2], input->shape()[3], h, w);
      if (choice == PaddingChoice::Same) {
        padding = circle::Padding::SAME;
      } else if (choice == PaddingChoice::Explicit) {
        x = emitSpatialPad(emit, x, dtype, x_shape, p.padding[0], p.padding[1], nullptr, base);
        x_shape = paddedShape(x_shape, p.padding[0], p.padding[1]);
      }
    }

    int32_t w = weightTensor(emit, weight, kind, base);
    int32_t bias = -1;
    if (const Argument &b = node.arg(2); !b.isNone())
      bias = castedTensor(emit, b.asValue(), dtype, base + "_bias");
    else
      bias = emit.constant(zeros(dtype, {out_channels}), base + "_zero_bias");

    Shape y_shape = permuteShape(out->shape(), {0, 2, 3, 1});
    int32_t y = emit.newTensor(dtype, y_shape, base + "_nhwc");
    if (kind == Kind::Regular) {
      circle::Conv2DOptionsT conv;
      conv.padding = padding;
      conv.stride_h = static_cast<int32_t>(p.stride[0]);
      conv.stride_w = static_cast<int32_t>(p.stride[1]);
      conv.dilation_h_factor = static_cast<int32_t>(p.dilation[0]);
      conv.dilation_w_factor = static_cast<int32_t>(p.dilation[1]);
      emit.addOperator(circle::BuiltinOperator::CONV_2D, {x, w, bias}, {y}, options(std::move(conv)));
    } else {
      circle::DepthwiseConv2DOptionsT conv;
      conv.padding = padding;
      conv.stride_h = static_cast<int32_t>(p.stride[0]);
      conv.stride_w = static_cast<int32_t>(p.stride[1]);
      conv.dilation_h_factor = static_cast<int32_t>(p.dilation[0]);
      conv.dilation_w_factor = static_cast<int32_t>(p.dilation[1]);
      conv.depth_multiplier = static_cast<int32_t>(out_channels / in_channels);
      emit.addOperator(circle::BuiltinOperator::DEPTHWISE_CONV_2D, {x, w, bias}, {y}, options(std::move(conv)));
    }
    emitTransposeInto(emit, y, {0, 3, 1, 2}, emit.tensor(out), base + "_output_nchw");
  }

private:
  // OIHW -> OHWI (regular) or [O,1,H,W] -> [1,H,W,O] (depthwise).
  static int32_t weightTensor(CircleEmitter &emit, const Value *weight, Kind kind, const std::string &base) {
    std::vector<int64_t> perm = kind == Kind::Regular ? std::vector<int64_t>{0, 2, 3, 1}
                                                      : std::vector<int64_t>{1, 2, 3, 0};
    const char *suffix = kind == Kind::Regular ? "_ohwi" : "_1hwo";
    if (weight->isConstant())
      return emit.constant(permutedView(weight->constant(), perm), weight->name() + suffix);
    return emitTranspose(emit, emit.tensor(weight), weight->dtype(), weight->shape(), perm, base + "_weight" + suffix);
  }
};

} // namespace

void registerConvolution(Registrar &r) {
  registerFor(r, {"aten::conv2d.default", "aten::conv2d.padding", "aten::convolution.default"},
              "TRANSPOSE -> CONV_2D or DEPTHWISE_CONV_2D (+PAD) -> TRANSPOSE", std::make_shared<Conv2d>());
}

} // namespace tico::lowering
