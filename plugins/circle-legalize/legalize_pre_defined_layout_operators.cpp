// legalize-pre-defined-layout-operators: operators whose Circle kernels only exist for
// channels-last data become their circle:: NHWC counterparts between two permutes:
//
//   conv2d / convolution (groups 1)        permute(x, NHWC) -> circle::conv2d           -> permute(NCHW)
//   conv2d / convolution (groups = C_in)   permute(x, NHWC) -> circle::depthwise_conv2d -> permute(NCHW)
//   conv_transpose2d / convolution(transposed)             -> circle::transpose_conv
//   max_pool2d(_with_indices), avg_pool2d                   -> circle::maxpool2d / avgpool2d
//   instance_norm (batch statistics)                        -> circle::instance_norm
//   prelu with one slope per channel (rank > 2)             -> circle::prelu over channels last
//
// Constant weights are rearranged as views of their storage (OIHW -> OHWI, [O,1,H,W] ->
// [1,H,W,O], IOHW -> OHWI); computed ones get a permute. Consecutive layout operators leave
// permute(permute(x, NCHW), NHWC) pairs behind, which remove-redundant-permute-pattern1 cancels
// so the graph stays channels-last between them. Nodes outside what the circle:: ops express
// (other ranks, dtypes, grouped convolutions, used max-pool indices) are left to the ATen
// lowerings, which report why they cannot be lowered.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

bool isFloat32(const Value *v) { return v->dtype() == DType::Float32; }

// Replaces `node`'s output `index` by circle op `op` applied to `args` (whose first argument is
// the channels-last input, already built), with `to_channels_last` the permutation that took
// the input there.
void replaceWithChannelsLast(rewrite::Rewriter &rewriter, Builder &b, Node &node, std::size_t index, const OpKey &op,
                             std::vector<Argument> args, const std::vector<int64_t> &to_channels_last) {
  const Value *out = node.output(index);
  Shape shape = permuteShape(out->shape(), to_channels_last);
  Value *y = b.value(op, std::move(args), out->dtype(), shape, "_" + op.name);
  Value *back = b.permuteOrView(y, inversePermutation(to_channels_last), "_to_channels_first");
  replaceAndErase(rewriter, &node, node.output(index), back);
}

bool isTransposed(const Node &node) {
  if (isOp(node, {"aten::conv_transpose2d.input"}))
    return true;
  const Argument *t = node.findArg("transposed");
  return isOp(node, {"aten::convolution.default"}) && t && t->isBool() && t->asBool();
}

bool legalizeConvolution(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  Value *w = node.input(1);
  if (x->rank() != 4 || w->rank() != 4 || !isFloat32(x) || !isFloat32(w) || !isStatic(w->shape()) ||
      x->shape()[1].isSymbolic())
    return false;
  auto stride = staticInts(node.arg("stride"), 2);
  auto dilation = staticInts(node.arg("dilation"), 2);
  if (!stride || !dilation)
    return false;
  const Argument &padding = node.arg("padding");
  bool string_padding = padding.kind() == Argument::Kind::String;
  if (!string_padding && !staticInts(padding, 2))
    return false;
  Builder b = rewriter.builderFor(node);
  int64_t groups = node.arg("groups").asInt();

  if (isTransposed(node)) {
    auto output_padding = staticInts(node.arg("output_padding"), 2);
    if (string_padding || !output_padding || groups != 1 || (*dilation)[0] != 1 || (*dilation)[1] != 1)
      return false;
    Value *xn = b.permuteOrView(x, kToNhwc, "_input_nhwc");
    Value *wn = b.permuteOrView(w, {1, 2, 3, 0}, "_weight_ohwi");
    replaceWithChannelsLast(rewriter, b, node, 0, OpKey("circle", "transpose_conv"),
                            {Argument::value(xn), Argument::value(wn), node.arg("bias"), Argument::ints(*stride),
                             padding, Argument::ints(*output_padding)},
                            kToNhwc);
    return true;
  }

  int64_t in_channels = x->shape()[1].value();
  int64_t out_channels = w->shape()[0].value();
  bool depthwise = groups != 1 && groups == in_channels && out_channels % in_channels == 0;
  if (groups != 1 && !depthwise)
    return false; // decompose-grouped-conv2d splits it first
  Value *xn = b.permuteOrView(x, kToNhwc, "_input_nhwc");
  Value *wn = depthwise ? b.permuteOrView(w, {1, 2, 3, 0}, "_weight_1hwo") : b.permuteOrView(w, kToNhwc, "_weight_ohwi");
  OpKey op("circle", depthwise ? "depthwise_conv2d" : "conv2d", string_padding ? "padding" : "default");
  replaceWithChannelsLast(rewriter, b, node, 0, op,
                          {Argument::value(xn), Argument::value(wn), node.arg("bias"), Argument::ints(*stride),
                           padding, Argument::ints(*dilation)},
                          kToNhwc);
  return true;
}

bool legalizeMaxPool(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  if (x->rank() != 4 || !isFloat32(x))
    return false;
  if (node.numOutputs() > 1 && isUsed(rewriter.graph(), node.output(1)))
    return false; // MAX_POOL_2D has no indices
  Builder b = rewriter.builderFor(node);
  Value *xn = b.permuteOrView(x, kToNhwc, "_input_nhwc");
  replaceWithChannelsLast(rewriter, b, node, 0, OpKey("circle", "maxpool2d"),
                          {Argument::value(xn), node.arg("kernel_size"), node.arg("stride"), node.arg("padding"),
                           node.arg("dilation"), node.arg("ceil_mode")},
                          kToNhwc);
  return true;
}

bool legalizeAvgPool(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  if (x->rank() != 4 || !isFloat32(x))
    return false;
  Builder b = rewriter.builderFor(node);
  Value *xn = b.permuteOrView(x, kToNhwc, "_input_nhwc");
  replaceWithChannelsLast(rewriter, b, node, 0, OpKey("circle", "avgpool2d"),
                          {Argument::value(xn), node.arg("kernel_size"), node.arg("stride"), node.arg("padding"),
                           node.arg("ceil_mode"), node.arg("count_include_pad"), node.arg("divisor_override")},
                          kToNhwc);
  return true;
}

bool legalizeInstanceNorm(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  if (x->rank() != 4 || !isFloat32(x) || !node.arg("use_input_stats").asBool())
    return false;
  Builder b = rewriter.builderFor(node);
  Value *xn = b.permuteOrView(x, kToNhwc, "_input_nhwc");
  replaceWithChannelsLast(rewriter, b, node, 0, OpKey("circle", "instance_norm"),
                          {Argument::value(xn), node.arg("weight"), node.arg("bias"), node.arg("eps")}, kToNhwc);
  return true;
}

// PyTorch applies a per-channel slope along dim 1; channels last it broadcasts from the right.
bool legalizePrelu(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  Value *w = node.input(1);
  if (x->rank() <= 2 || w->rank() != 1 || w->shape()[0].isSymbolic() || w->shape()[0].value() == 1 ||
      !isFloat32(x) || !isFloat32(w))
    return false;
  std::vector<int64_t> to_last = {0};
  for (int64_t i = 2; i < x->rank(); ++i)
    to_last.push_back(i);
  to_last.push_back(1);
  Builder b = rewriter.builderFor(node);
  Value *xl = b.permuteOrView(x, to_last, "_channels_last");
  replaceWithChannelsLast(rewriter, b, node, 0, OpKey("circle", "prelu"), {Argument::value(xl), Argument::value(w)},
                          to_last);
  return true;
}


} // namespace

void registerLegalizePreDefinedLayoutOperators(Registrar &r) {
  r.addPass(sweepPass(
      "legalize-pre-defined-layout-operators",
      "conv / transposed conv / pooling / instance_norm / per-channel prelu -> permute + circle:: NHWC op + permute",
      {{{"aten::conv2d.default", "aten::conv2d.padding", "aten::convolution.default", "aten::conv_transpose2d.input"},
        legalizeConvolution},
       {{"aten::max_pool2d.default", "aten::max_pool2d_with_indices.default"}, legalizeMaxPool},
       {{"aten::avg_pool2d.default"}, legalizeAvgPool},
       {{"aten::instance_norm.default"}, legalizeInstanceNorm},
       {{"aten::prelu.default", "aten::_prelu_kernel.default"}, legalizePrelu}}));
}

} // namespace tico::legalize
