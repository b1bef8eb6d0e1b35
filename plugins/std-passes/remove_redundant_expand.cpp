// remove-redundant-expand (RemoveRedundantExpand): an expand whose result has its input's
// shape copies nothing; its users read the input.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

class RemoveRedundantExpandPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::expand.default", "aten::expand_copy.default"}) || !isTensorValue(node->arg(0)))
        continue;
      Value *x = node->input(0);
      if (x->shape() != node->output()->shape() || x->dtype() != node->output()->dtype())
        continue;
      replaceAndErase(graph, node, x);
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantExpand(Registrar &r) {
  r.addPass(simplePass<RemoveRedundantExpandPass>("remove-redundant-expand",
                                                  "Remove expand ops whose result shape is their input's"));
}

} // namespace tico::passes
