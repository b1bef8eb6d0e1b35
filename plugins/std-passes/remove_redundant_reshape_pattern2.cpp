// remove-redundant-reshape-pattern2 (RemoveRedundantReshapePattern2):
//     x[A,B,C] -reshape-> [1,A,B,C] -permute[2,0,1,3]-> [B,1,A,C] -reshape-> [B, A*C]
//  => x[A,B,C] -permute[1,0,2]-> [B,A,C] -reshape-> [B, A*C]
// The first reshape and the permute must have no other user.
#include "builder.h"
#include "dims.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

class Pattern2 final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    // Matched from the closing reshape backwards: a rewrite erases only nodes before it.
    for (Node *reshape2 : snapshot(graph)) {
      if (!isReshape(*reshape2))
        continue;
      Node *permute = producerIf(reshape2->input(0), {"aten::permute.default"});
      if (permute == nullptr || permute->arg(1).asInts() != std::vector<int64_t>{2, 0, 1, 3} ||
          !hasSingleUse(graph, permute->output()))
        continue;
      Node *reshape1 = permute->input(0)->producer();
      if (reshape1 == nullptr || !isReshape(*reshape1) || !hasSingleUse(graph, reshape1->output()))
        continue;
      Value *x = reshape1->input(0);
      if (x->rank() != 3 || prependOne(x->shape()) != reshape1->output()->shape())
        continue;
      const Shape &p = permute->output()->shape();
      if (reshape2->output()->shape() != Shape{p[0], mulDims(p[2], p[3])})
        continue;
      Builder b(graph, permute, permute->name());
      Value *permuted = b.permute(x, {1, 0, 2});
      reshape2->replaceInput(permute->output(), permuted);
      eraseDeadChain(graph, permute->output());
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantReshapePattern2(Registrar &r) {
  r.addPass(simplePass<Pattern2>("remove-redundant-reshape-pattern2",
                                 "reshape(1xAxBxC) + permute(2,0,1,3) + reshape(Bx(A*C)) -> permute + reshape"));
}

} // namespace tico::passes
