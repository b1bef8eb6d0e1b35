// convert-circle-custom-ops: the original converter's circle_custom:: ops (a program exported
// with its Python package imported carries them) become the circle:: ops with the same
// semantics, with every attribute the original leaves None made explicit (mapping and
// semantics in plugins/circle-ops/circle_custom_ops.h). From there they take the
// path of tico's own circle:: ops: one Circle operator each, no layout change (both families
// are channels-last). A node without a circle:: equivalent (an MX quantization op, a groups
// value the original does not define) stays; the lowering report gives the reason.
#include "circle_custom_ops.h"
#include "legalize_support.h"
#include "passes.h"

#include <variant>

namespace tico::legalize {
namespace {

class ConvertCircleCustomOps final : public rewrite::Pattern {
public:
  // Every node: circle_custom:: ops are recognised by their namespace.
  std::vector<OpKey> roots() const override { return {}; }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    return circle_ops::isCircleCustom(node.op()) && convert(rewriter, node);
  }

private:
  static bool convert(rewrite::Rewriter &rewriter, Node &node) {
    auto mapped = circle_ops::mapCircleCustomOp(node);
    auto *call = std::get_if<circle_ops::CircleCall>(&mapped);
    if (call == nullptr || node.numOutputs() != 1)
      return false;
    Value *out = node.output();
    TensorTypeSpec type;
    type.dtype = out->dtype();
    type.shape = out->shape();
    Builder b = rewriter.builderFor(node);
    Node *replacement = b.node(call->op, std::move(call->args), {type}, "_circle");
    replaceAndErase(rewriter, &node, out, replacement->output());
    return true;
  }
};

} // namespace

void registerConvertCircleCustomOps(Registrar &r) {
  r.addPass(sweepPass<ConvertCircleCustomOps>(
      "convert-circle-custom-ops",
      "the original converter's circle_custom:: ops -> the circle:: ops of the same semantics"));
}

} // namespace tico::legalize
