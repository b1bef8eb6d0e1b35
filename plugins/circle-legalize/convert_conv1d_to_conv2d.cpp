// convert-conv1d-to-conv2d: a 1-D convolution (conv1d, or convolution / conv_transpose1d on
// [N, C, L]) becomes the 2-D one over [N, C, 1, L]: the input and weight get a unit dim 2
// (a view for constant weights), stride/padding/dilation get a leading 1/0/1, and the result
// loses dim 2 again.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

// [a] -> [lead, a] for a one-element int list argument.
std::optional<Argument> widened(const Argument &arg, int64_t lead) {
  auto v = staticInts(arg, 1);
  if (!v)
    return std::nullopt;
  return Argument::ints({lead, (*v)[0]});
}

class ConvertConv1dToConv2d final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override {
    return rewrite::opKeys({"aten::conv1d.default", "aten::conv1d.padding", "aten::convolution.default",
                            "aten::conv_transpose1d.default"});
  }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override { return convert(rewriter, node); }

private:
  static bool convert(rewrite::Rewriter &rewriter, Node &node) {
    Value *x = node.input(0);
    Value *w = node.input(1);
    if (x->rank() != 3 || w->rank() != 3)
      return false;
    bool transposed = isOp(node, {"aten::conv_transpose1d.default"});
    if (const Argument *t = node.findArg("transposed"))
      transposed = t->asBool();
    auto stride = widened(node.arg("stride"), 1);
    auto dilation = widened(node.arg("dilation"), 1);
    const Argument &padding_arg = node.arg("padding");
    std::optional<Argument> padding =
        padding_arg.kind() == Argument::Kind::String ? std::optional<Argument>(padding_arg) : widened(padding_arg, 0);
    if (!stride || !dilation || !padding)
      return false;
    const Value *out = node.output();
    Builder b = rewriter.builderFor(node);
    Value *x4 = b.unsqueezeOrView(x, 2, "_input_2d");
    Value *w4 = b.unsqueezeOrView(w, 2, "_weight_2d");
    Shape shape = out->shape();
    shape.insert(shape.begin() + 2, Dim(1));
    Value *y;
    if (transposed) {
      auto output_padding = widened(node.arg("output_padding"), 0);
      if (!output_padding)
        return false;
      y = b.value(OpKey("aten", "conv_transpose2d", "input"),
                  {Argument::value(x4), Argument::value(w4), node.arg("bias"), *stride, *padding, *output_padding,
                   node.arg("groups"), *dilation},
                  out->dtype(), shape, "_2d");
    } else {
      OpKey conv("aten", "conv2d", padding->kind() == Argument::Kind::String ? "padding" : "default");
      y = b.value(conv,
                  {Argument::value(x4), Argument::value(w4), node.arg("bias"), *stride, *padding, *dilation,
                   node.arg("groups")},
                  out->dtype(), shape, "_2d");
    }
    replaceAndErase(rewriter, &node, node.output(), b.squeezeOrView(y, 2, "_1d"));
    return true;
  }
};

} // namespace

void registerConvertConv1dToConv2d(Registrar &r) {
  r.addPass(sweepPass<ConvertConv1dToConv2d>(
      "convert-conv1d-to-conv2d", "1-D (transposed) convolution -> unsqueeze + 2-D convolution + squeeze"));
}

} // namespace tico::legalize
