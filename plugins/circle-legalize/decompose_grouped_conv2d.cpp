// decompose-grouped-conv2d: a 2-D convolution with 1 < groups < in_channels (neither regular
// nor depthwise, which Circle has no operator for) becomes one groups=1 conv2d per group over
// channel slices of the input, weight and bias, concatenated along the channel dim.
// Constant weights and biases are sliced as views of their storage.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

class DecomposeGroupedConv2d final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph))
      if (isOp(*node, {"aten::conv2d.default", "aten::conv2d.padding", "aten::convolution.default"}))
        changed |= decompose(graph, *node);
    return changed;
  }

private:
  static bool decompose(Graph &graph, Node &node) {
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
    Builder b(graph, &node, node.name());
    bool string_padding = node.arg("padding").kind() == Argument::Kind::String;
    OpKey conv("aten", "conv2d", string_padding ? "padding" : "default");
    std::vector<Value *> pieces;
    for (int64_t g = 0; g < groups; ++g) {
      const std::string tag = "_group" + std::to_string(g);
      Value *xg = b.slice(x, 1, g * in_group, (g + 1) * in_group, 1, tag + "_input");
      Value *wg = b.slice(w, 0, g * out_group, (g + 1) * out_group, 1, tag + "_weight");
      Argument bias = Argument::none();
      if (!node.arg("bias").isNone())
        bias = Argument::value(b.slice(node.arg("bias").asValue(), 0, g * out_group, (g + 1) * out_group, 1, tag + "_bias"));
      Shape shape = out->shape();
      shape[1] = out_group;
      pieces.push_back(b.value(conv,
                               {Argument::value(xg), Argument::value(wg), bias, node.arg("stride"), node.arg("padding"),
                                node.arg("dilation"), Argument::integer(1)},
                               out->dtype(), shape, tag));
    }
    Value *cat = b.value(OpKey("aten", "cat"), {Argument::values(pieces), Argument::integer(1)}, out->dtype(),
                         out->shape(), "_groups");
    replaceAndErase(graph, &node, node.output(), cat);
    return true;
  }
};

} // namespace

void registerDecomposeGroupedConv2d(Registrar &r) {
  r.addPass(simplePass<DecomposeGroupedConv2d>(
      "decompose-grouped-conv2d", "conv2d with 1 < groups < in_channels -> per-group conv2d + cat"));
}

} // namespace tico::legalize
