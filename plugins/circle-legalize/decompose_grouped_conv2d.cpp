// decompose-grouped-conv2d: a 2-D convolution with 1 < groups < in_channels (neither regular
// nor depthwise, which Circle has no operator for) becomes one groups=1 conv2d per group over
// channel slices of the input, weight and bias, concatenated along the channel dim.
// Constant weights and biases are sliced as views of their storage.
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
      "decompose-grouped-conv2d", "conv2d with 1 < groups < in_channels -> per-group conv2d + cat"));
}

} // namespace tico::legalize
