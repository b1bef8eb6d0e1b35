// decompose-grouped-conv2d: a 2-D convolution with 1 < groups < in_channels (neither regular
// nor depthwise, which Circle has no operator for) becomes one convolution per group.
//
// Channels-last form (float32, static weight and attributes; what the layout legalization would
// make of each group anyway): the input is permuted to NHWC once, one split along the channels
// gives every group its slice (one SPLIT), each group runs as circle::conv2d, one cat joins the
// groups' outputs along the channels and one permute returns to NCHW:
//
//   permute(x, NHWC) -> split(C/g) -> g x circle::conv2d -> cat(dim 3) -> permute(NCHW)
//
// so a grouped block costs two transposes, as a regular convolution does, which the O1 layout
// elimination then removes between consecutive convolutions (one transpose pair per group
// before: a RegNet stage was mostly TRANSPOSEs). Otherwise (other dtypes, symbolic attributes)
// the original's form: groups=1 conv2d nodes over channel slices of the input, concatenated
// along the channel dim.
// Constant weights and biases are sliced (and rearranged to OHWI) as views of their storage.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

class DecomposeGroupedConv2d final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override {
    return rewrite::opKeys({"aten::conv2d.default", "aten::conv2d.padding", "aten::convolution.default"});
  }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override { return decompose(rewriter, node); }

private:
  static bool channelsLast(rewrite::Rewriter &rewriter, Builder &b, Node &node, int64_t groups, int64_t in_group,
                           int64_t out_group) {
    Value *x = node.input(0);
    Value *w = node.input(1);
    const Value *out = node.output();
    if (x->dtype() != DType::Float32 || w->dtype() != DType::Float32 || !isStatic(w->shape()))
      return false;
    auto stride = staticInts(node.arg("stride"), 2);
    auto dilation = staticInts(node.arg("dilation"), 2);
    const Argument &padding = node.arg("padding");
    const bool string_padding = padding.kind() == Argument::Kind::String;
    if (!stride || !dilation || (!string_padding && !staticInts(padding, 2)))
      return false;
    const std::vector<int64_t> to_nhwc = {0, 2, 3, 1}, to_nchw = {0, 3, 1, 2};
    Value *xn = b.permuteOrView(x, to_nhwc, "_input_nhwc");
    Shape piece = xn->shape();
    piece[3] = in_group;
    std::vector<TensorTypeSpec> pieces(static_cast<std::size_t>(groups), TensorTypeSpec{ValueKind::Tensor, x->dtype(), piece, {}, nullptr});
    Node *split = b.node(OpKey("aten", "split", "Tensor"),
                         {rewrite::kw("self", Argument::value(xn)), rewrite::kw("split_size", Argument::integer(in_group)),
                          rewrite::kw("dim", Argument::integer(3))},
                         pieces, "_groups");
    const OpKey conv("circle", "conv2d", string_padding ? "padding" : "default");
    Shape y_shape = permuteShape(out->shape(), to_nhwc);
    y_shape[3] = out_group;
    std::vector<Value *> outputs;
    for (int64_t g = 0; g < groups; ++g) {
      const std::string tag = "_group" + std::to_string(g);
      Value *wg = b.sliceOrView(w, 0, g * out_group, (g + 1) * out_group, 1, tag + "_weight");
      Value *wn = b.permuteOrView(wg, to_nhwc, tag + "_weight_ohwi");
      Argument bias = Argument::none();
      if (!node.arg("bias").isNone())
        bias = Argument::value(b.sliceOrView(node.arg("bias").asValue(), 0, g * out_group, (g + 1) * out_group, 1, tag + "_bias"));
      outputs.push_back(b.value(conv,
                                {Argument::value(split->output(static_cast<std::size_t>(g))), Argument::value(wn), bias,
                                 Argument::ints(*stride), padding, Argument::ints(*dilation)},
                                out->dtype(), y_shape, tag));
    }
    Value *cat = b.value(OpKey("aten", "cat"), {Argument::values(outputs), Argument::integer(3)}, out->dtype(),
                         permuteShape(out->shape(), to_nhwc), "_groups_nhwc");
    replaceAndErase(rewriter, &node, node.output(), b.permuteOrView(cat, to_nchw, "_to_channels_first"));
    return true;
  }

  static bool decompose(rewrite::Rewriter &rewriter, Node &node) {
    if (const Argument *t = node.findArg("transposed"); t && t->asBool())
      return false;
    Value *x = node.input(0);
    Value *w = node.input(1);
    if (x->rank() != 4 || w->rank() != 4 || x->shape()[1].isSymbolic() || w->shape()[0].isSymbolic())
      return false;
    int64_t groups = node.arg("groups").asInt();
    int64_t in_channels = x->shape()[1].value();
    int64_t out_channels = w->shape()[0].value();
    if (groups <= 1 || groups == in_channels || in_channels % groups != 0 || out_channels % groups != 0)
      return false;
    const Value *out = node.output();
    int64_t in_group = in_channels / groups;
    int64_t out_group = out_channels / groups;
    Builder b = rewriter.builderFor(node);
    if (channelsLast(rewriter, b, node, groups, in_group, out_group))
      return true;
    bool string_padding = node.arg("padding").kind() == Argument::Kind::String;
    OpKey conv("aten", "conv2d", string_padding ? "padding" : "default");
    std::vector<Value *> pieces;
    for (int64_t g = 0; g < groups; ++g) {
      const std::string tag = "_group" + std::to_string(g);
      Value *xg = b.sliceOrView(x, 1, g * in_group, (g + 1) * in_group, 1, tag + "_input");
      Value *wg = b.sliceOrView(w, 0, g * out_group, (g + 1) * out_group, 1, tag + "_weight");
      Argument bias = Argument::none();
      if (!node.arg("bias").isNone())
        bias = Argument::value(b.sliceOrView(node.arg("bias").asValue(), 0, g * out_group, (g + 1) * out_group, 1, tag + "_bias"));
      Shape shape = out->shape();
      shape[1] = out_group;
      pieces.push_back(b.value(conv,
                               {Argument::value(xg), Argument::value(wg), bias, node.arg("stride"), node.arg("padding"),
                                node.arg("dilation"), Argument::integer(1)},
                               out->dtype(), shape, tag));
    }
    Value *cat = b.value(OpKey("aten", "cat"), {Argument::values(pieces), Argument::integer(1)}, out->dtype(),
                         out->shape(), "_groups");
    replaceAndErase(rewriter, &node, node.output(), cat);
    return true;
  }
};

} // namespace

void registerDecomposeGroupedConv2d(Registrar &r) {
  r.addPass(sweepPass<DecomposeGroupedConv2d>(
      "decompose-grouped-conv2d",
      "conv2d with 1 < groups < in_channels -> NHWC split + per-group circle::conv2d + cat (float32), else per-group "
      "conv2d + cat"));
}

} // namespace tico::legalize
