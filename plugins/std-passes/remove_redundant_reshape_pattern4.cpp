// remove-redundant-reshape-pattern4 (RemoveRedundantReshapePattern4): reshape(reshape(x, s1), s2)
// is reshape(x, s2). The inner reshape must have no other user.
#include "pass_support.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {

void registerRemoveRedundantReshapePattern4(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-reshape-pattern4", "Fuse two consecutive reshapes into one", kReshapeOps,
                      [](Node &outer, rewrite::Rewriter &rewriter) {
                        if (!isReshape(outer))
                          return false;
                        Node *inner = outer.input(0)->producer();
                        if (!inner || !isReshape(*inner) || !hasSingleUse(rewriter.graph(), inner->output()))
                          return false;
                        // The outer size list (and any sym_size it reads) is valid for x: same element count.
                        Builder b = rewriter.builderFor(outer);
                        Value *fused = b.typed(outer.op().str(), {{"", A(inner->input(0))}, {"", outer.arg(1)}},
                                               outer.output()->dtype(), outer.output()->shape());
                        rewriter.replaceNode(&outer, fused);
                        rewriter.eraseDeadChain(inner->output());
                        return true;
                      }));
}

} // namespace tico::passes
