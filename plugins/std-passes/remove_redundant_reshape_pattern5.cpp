// remove-redundant-reshape-pattern5 (RemoveRedundantReshapePattern5): a reshape to the shape
// its input already has does nothing; users read the input.
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

class Pattern5 final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isReshape(*node) || node->input(0)->shape() != node->output()->shape())
        continue;
      replaceAndErase(graph, node, node->input(0));
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantReshapePattern5(Registrar &r) {
  r.addPass(simplePass<Pattern5>("remove-redundant-reshape-pattern5", "Remove reshapes to the input's own shape"));
}

} // namespace tico::passes
