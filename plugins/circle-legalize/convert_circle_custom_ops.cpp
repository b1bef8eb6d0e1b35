// convert-circle-custom-ops: the original converter's circle_custom:: ops (a program exported
// with its Python package imported carries them) become the circle:: ops with the same
// semantics, with every attribute the original leaves None made explicit (mapping and
// semantics in plugins/circle-lowering/custom/circle_custom_ops.h). From there they take the
// path of tico's own circle:: ops: one Circle operator each, no layout change (both families
// are channels-last). A node without a circle:: equivalent (an MX quantization op, a groups
// value the original does not define) stays; the lowering report gives the reason.
#include "custom/circle_custom_ops.h"
#include "legalize_support.h"
#include "passes.h"

#include <variant>

namespace tico::legalize {
namespace {

class ConvertCircleCustomOps final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph))
      if (circle_ops::isCircleCustom(node->op()))
        changed |= convert(graph, *node);
    return changed;
  }

private:
  static bool convert(Graph &graph, Node &node) {
    auto mapped = circle_ops::mapCircleCustomOp(node);
    auto *call = std::get_if<circle_ops::CircleCall>(&mapped);
    if (call == nullptr || node.numOutputs() != 1)
      return false;
    Value *out = node.output();
    TensorTypeSpec type;
    type.dtype = out->dtype();
    type.shape = out->shape();
    Builder b(graph, &node, node.name());
    Node *replacement = b.node(call->op, std::move(call->args), {type}, "_circle");
    replaceAndErase(graph, &node, out, replacement->output());
    return true;
  }
};

} // namespace

void registerConvertCircleCustomOps(Registrar &r) {
  r.addPass(simplePass<ConvertCircleCustomOps>(
      "convert-circle-custom-ops",
      "the original converter's circle_custom:: ops -> the circle:: ops of the same semantics"));
}

} // namespace tico::legalize
