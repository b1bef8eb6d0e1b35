// remove-redundant-slice (RemoveRedundantSlice): a slice whose result has its input's shape
// took every element (steps are positive), so its users read the input.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

class RemoveRedundantSlicePass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::slice.Tensor", "aten::slice_copy.Tensor"}) || !isTensorValue(node->arg(0)))
        continue;
      Value *x = node->input(0);
      if (x->shape() != node->output()->shape())
        continue;
      replaceAndErase(graph, node, x);
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantSlice(Registrar &r) {
  r.addPass(simplePass<RemoveRedundantSlicePass>("remove-redundant-slice",
                                                 "Remove slices that keep their whole input"));
}

} // namespace tico::passes
