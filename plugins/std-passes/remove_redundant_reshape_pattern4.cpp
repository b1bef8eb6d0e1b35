// remove-redundant-reshape-pattern4 (RemoveRedundantReshapePattern4): reshape(reshape(x, s1), s2)
// is reshape(x, s2). The inner reshape must have no other user.
#include "builder.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

class Pattern4 final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *outer : snapshot(graph)) {
      if (!isReshape(*outer))
        continue;
      Node *inner = outer->input(0)->producer();
      if (!inner || !isReshape(*inner) || !hasSingleUse(graph, inner->output()))
        continue;
      // The outer size list (and any sym_size it reads) is valid for x: same element count.
      Builder b(graph, outer, outer->name());
      Value *fused = b.typed(outer->op().str(), {{"", A(inner->input(0))}, {"", outer->arg(1)}},
                             outer->output()->dtype(), outer->output()->shape());
      replaceAndErase(graph, outer, fused);
      eraseDeadChain(graph, inner->output());
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantReshapePattern4(Registrar &r) {
  r.addPass(simplePass<Pattern4>("remove-redundant-reshape-pattern4", "Fuse two consecutive reshapes into one"));
}

} // namespace tico::passes
