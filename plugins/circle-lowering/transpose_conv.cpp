// conv_transpose2d / convolution(transposed=True) / circle::transpose_conv -> TRANSPOSE_CONV.
//
// TRANSPOSE_CONV takes (output_shape, OHWI weights, NHWC input) and scatters every input
// pixel into a window of the output. With VALID padding and an output of
// (H_in - 1) * stride + kernel + output_padding rows it computes PyTorch's result before
// PyTorch removes `padding` rows at each border, so a SLICE crops [padding, padding + H_out)
// when PyTorch pads; output_padding rows (at the end) only receive the bias, as in PyTorch.
// The ATen forms are wrapped in TRANSPOSEs to NHWC and back, their IOHW weights viewed as OHWI.
#include "transpose_conv.h"

#include "convolution.h"
#include "lowerings.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

namespace tico::lowering {

bool isTransposedConvolution(const Node &node) {
  if (node.op() != OpKey("aten", "convolution"))
    return false;
  const Argument *transposed = node.findArg("transposed");
  return transposed && transposed->isBool() && transposed->asBool();
}

namespace {

struct Geometry {
  int64_t in_channels = 0, out_channels = 0, kernel_h = 0, kernel_w = 0;
  int channel_dim = 1, height_dim = 2; // of the input value
};

Geometry geometryOf(const Node &node, bool nhwc) {
  const Shape &x = node.input(0)->shape();
  const Shape &w = node.input(1)->shape();
  Geometry g;
  g.channel_dim = nhwc ? 3 : 1;
  g.height_dim = nhwc ? 1 : 2;
  g.in_channels = x[static_cast<std::size_t>(g.channel_dim)].value();
  if (nhwc) { // OHWI
    g.out_channels = w[0].value();
    g.kernel_h = w[1].value();
    g.kernel_w = w[2].value();
  } else { // IOHW
    g.out_channels = w[1].value();
    g.kernel_h = w[2].value();
    g.kernel_w = w[3].value();
  }
  return g;
}

int64_t fullSize(int64_t in, int64_t stride, int64_t kernel, int64_t output_padding) {
  return (in - 1) * stride + kernel + output_padding;
}

} // namespace

std::string transposeConvUnsupported(const Node &node, bool nhwc) {
  const Value *input = node.input(0);
  const Value *weight = node.input(1);
  if (input->rank() != 4 || weight->rank() != 4)
    return "only 2-D transposed convolution of batched input is supported (input rank " +
           std::to_string(input->rank()) + ")";
  if (auto r = requireFloatOrQuantized(input, "TRANSPOSE_CONV"); !r.empty())
    return r;
  if (auto r = requireFloatOrQuantized(weight, "TRANSPOSE_CONV"); !r.empty())
    return r;
  if (auto r = quantizedOperands(node, "TRANSPOSE_CONV"); !r.empty())
    return r;
  if (node.output()->isQuantized() && !node.output()->quant()->isPerTensor())
    return "a quantized TRANSPOSE_CONV writes a per-tensor quantized result";
  if (!nhwc && anyQuantized({input, weight, node.output()}))
    return "a quantized transposed convolution is lowered from circle::transpose_conv (NHWC), which the "
           "legalize stage makes of it";
  ConvAttrs a = decodeConvAttrs(node);
  if (!a.padding_mode.empty())
    return "transposed convolution takes explicit padding";
  if (auto r = checkConvAttrs(a); !r.empty())
    return r;
  if (a.groups != 1)
    return "TRANSPOSE_CONV has no groups; groups=" + std::to_string(a.groups) + " is not supported";
  if (a.dilation[0] != 1 || a.dilation[1] != 1)
    return "TRANSPOSE_CONV has no dilation; a dilated transposed convolution needs a constant weight (its kernel "
           "is then dilated with zeros)";
  for (int i = 0; i < 2; ++i)
    if (a.output_padding[i] < 0 || a.output_padding[i] >= a.stride[i])
      return "output_padding must be smaller than the stride";
  for (std::size_t i = 0; i < 4; ++i)
    if (weight->shape()[i].isSymbolic())
      return "the weight shape must be static";
  const Shape &x = input->shape();
  int h = nhwc ? 1 : 2;
  if (x[static_cast<std::size_t>(h)].isSymbolic() || x[static_cast<std::size_t>(h) + 1].isSymbolic() ||
      x[nhwc ? 3 : 1].isSymbolic())
    return "TRANSPOSE_CONV needs static spatial sizes and channel counts (only the batch may be symbolic)";
  Geometry g = geometryOf(node, nhwc);
  int64_t weight_in = nhwc ? weight->shape()[3].value() : weight->shape()[0].value();
  if (weight_in != g.in_channels)
    return "the weight has " + std::to_string(weight_in) + " input channels, the input " +
           std::to_string(g.in_channels);
  for (int i = 0; i < 2; ++i) {
    int64_t in = x[static_cast<std::size_t>(h + i)].value();
    int64_t kernel = i == 0 ? g.kernel_h : g.kernel_w;
    if (fullSize(in, a.stride[i], kernel, a.output_padding[i]) - 2 * a.padding[i] <= 0)
      return "the padding leaves an empty output";
  }
  return {};
}

void lowerTransposeConv(const Node &node, CircleEmitter &emit, bool nhwc) {
  const Value *input = node.input(0);
  const Value *weight = node.input(1);
  const Value *out = node.output();
  const std::string base = node.name();
  ConvAttrs a = decodeConvAttrs(node);
  Geometry g = geometryOf(node, nhwc);
  DType dtype = input->dtype();

  Shape x_shape = nhwc ? input->shape() : permuteShape(input->shape(), {0, 2, 3, 1});
  int32_t x = nhwc ? emit.tensor(input)
                   : emitTranspose(emit, emit.tensor(input), dtype, input->shape(), {0, 2, 3, 1}, base + "_input_nhwc");
  int32_t w = nhwc ? emit.tensor(weight) : permutedWeight(emit, weight, {1, 2, 3, 0}, "_ohwi", base);
  // onert 0.2 rejects a TRANSPOSE_CONV with the optional 4th (bias) input ("Invalid number of
  // input tensors"), so a float bias is a separate ADD over the channels (last) dim. A quantized
  // one (int32/int64 in the accumulator's scale) is the 4th input: added before the one
  // requantization, as integer kernels do; an ADD of codes would round twice.
  const Argument &bias_arg = node.arg("bias");
  const bool quantized = out->isQuantized();
  int32_t bias = bias_arg.isNone() ? -1 : biasTensor(emit, bias_arg.asValue(), out, dtype, base + "_bias");
  // The tensors between TRANSPOSE_CONV and the result (uncropped, NHWC) carry the result's
  // parameters: SLICE and TRANSPOSE move codes.
  auto intermediate = [&](const Shape &shape, const std::string &hint) {
    const int32_t t = emit.newTensor(quantized ? out->dtype() : dtype, shape, hint);
    if (quantized)
      emit.setQuantization(t, *out->quant());
    return t;
  };

  int64_t full_h = fullSize(x_shape[1].value(), a.stride[0], g.kernel_h, a.output_padding[0]);
  int64_t full_w = fullSize(x_shape[2].value(), a.stride[1], g.kernel_w, a.output_padding[1]);
  bool crop = a.padding[0] != 0 || a.padding[1] != 0;
  Shape y_shape = nhwc ? out->shape() : permuteShape(out->shape(), {0, 2, 3, 1});
  Shape full_shape = {x_shape[0], full_h, full_w, g.out_channels};

  // output_shape: the batch is read at runtime when it is symbolic.
  std::vector<VectorPiece> shape(4);
  if (x_shape[0].isSymbolic()) {
    shape[0].kind = VectorPiece::Kind::InputDim;
    shape[0].input = input;
    shape[0].value = 0;
  } else {
    shape[0].value = x_shape[0].value();
  }
  shape[1].value = full_h;
  shape[2].value = full_w;
  shape[3].value = g.out_channels;
  int32_t output_shape = emitIntVector(emit, shape, base + "_output_shape");

  bool wrap = !nhwc;
  int32_t result = wrap ? intermediate(y_shape, base + "_nhwc") : emit.tensor(out);
  int32_t full = crop ? intermediate(full_shape, base + "_uncropped") : result;
  circle::TransposeConvOptionsT tconv;
  tconv.padding = circle::Padding::VALID;
  tconv.stride_h = toInt32(a.stride[0], "stride");
  tconv.stride_w = toInt32(a.stride[1], "stride");
  if (quantized) {
    std::vector<int32_t> inputs = {output_shape, w, x};
    if (bias >= 0)
      inputs.push_back(bias);
    emit.addOperator(circle::BuiltinOperator::TRANSPOSE_CONV, inputs, {full}, options(std::move(tconv)));
  } else {
    int32_t scattered = bias < 0 ? full : emit.newTensor(dtype, full_shape, base + "_no_bias");
    emit.addOperator(circle::BuiltinOperator::TRANSPOSE_CONV, {output_shape, w, x}, {scattered},
                     options(std::move(tconv)));
    if (bias >= 0)
      emit.addOperator(circle::BuiltinOperator::ADD, {scattered, bias}, {full}, options(circle::AddOptionsT{}));
  }
  if (crop) {
    int32_t begin = emit.constInt32({0, toInt32(a.padding[0], "padding"), toInt32(a.padding[1], "padding"), 0},
                                    base + "_crop_begin");
    // -1 takes the (possibly symbolic) batch whole.
    int32_t size = emit.constInt32({x_shape[0].isSymbolic() ? -1 : toInt32(x_shape[0].value(), "batch"),
                                    toInt32(y_shape[1].value(), "height"), toInt32(y_shape[2].value(), "width"),
                                    toInt32(g.out_channels, "channels")},
                                   base + "_crop_size");
    emit.addOperator(circle::BuiltinOperator::SLICE, {full, begin, size}, {result}, options(circle::SliceOptionsT{}));
  }
  if (wrap)
    emitTransposeInto(emit, result, {0, 3, 1, 2}, emit.tensor(out), base + "_output_nchw");
}

namespace {

class TransposeConv final : public CheckedLowering {
public:
  explicit TransposeConv(bool nhwc) : nhwc_(nhwc) {}
  std::string check(const Node &node) const override { return transposeConvUnsupported(node, nhwc_); }
  void lower(const Node &node, CircleEmitter &emit) const override { lowerTransposeConv(node, emit, nhwc_); }

private:
  bool nhwc_;
};

} // namespace

void registerTransposeConv(Registrar &r) {
  registerFor(r, {ops::aten::conv_transpose2d_input}, "TRANSPOSE -> TRANSPOSE_CONV (+SLICE crop) -> TRANSPOSE",
              std::make_shared<TransposeConv>(false));
  registerFor(r, {ops::circle::transpose_conv_default}, "TRANSPOSE_CONV (+SLICE crop), NHWC",
              std::make_shared<TransposeConv>(true));
}

} // namespace tico::lowering
