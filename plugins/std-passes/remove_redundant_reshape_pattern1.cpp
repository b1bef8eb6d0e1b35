// remove-redundant-reshape-pattern1 (RemoveRedundantReshapePattern1):
//     x[A,B,C] -reshape-> [1,A,B,C] -permute[0,1,3,2]-> [1,A,C,B] -mul(s)-> -reshape-> [A,C,B]
//  => x[A,B,C] -permute[0,2,1]-> [A,C,B] -mul(s)-> [A,C,B]
// Every node in the chain must have no other user. The other mul operand must broadcast to
// [A,C,B] without the leading 1 (a number, or a tensor of rank <= 3): the original converter
// does not check this, and a rank-4 operand would change the result's rank.
#include "builder.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

class Pattern1 final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    // Matched from the closing reshape backwards, so that a rewrite erases only the visited
    // node and nodes before it (the snapshot still holds the nodes after it).
    for (Node *reshape2 : snapshot(graph)) {
      if (!isReshape(*reshape2))
        continue;
      Node *mul = producerIf(reshape2->input(0), {"aten::mul.Tensor", "aten::mul.Scalar"});
      if (mul == nullptr || !hasSingleUse(graph, mul->output()) ||
          prependOne(reshape2->output()->shape()) != mul->output()->shape())
        continue;
      auto permuteOf = [&](std::size_t i) -> Node * {
        const Argument &a = mul->arg(i);
        Node *p = a.isValue() ? producerIf(a.asValue(), {"aten::permute.default"}) : nullptr;
        return p != nullptr && p->arg(1).asInts() == std::vector<int64_t>{0, 1, 3, 2} ? p : nullptr;
      };
      Node *permute = permuteOf(0);
      const bool permute_first = permute != nullptr;
      if (!permute)
        permute = permuteOf(1);
      if (permute == nullptr || !hasSingleUse(graph, permute->output()))
        continue;
      const Argument &other = mul->arg(permute_first ? 1 : 0);
      if (other.isValue() && (other.asValue() == permute->output() || other.asValue()->rank() > 3))
        continue;
      Node *reshape1 = permute->input(0)->producer();
      if (reshape1 == nullptr || !isReshape(*reshape1) || !hasSingleUse(graph, reshape1->output()))
        continue;
      Value *x = reshape1->input(0);
      if (x->rank() != 3 || prependOne(x->shape()) != reshape1->output()->shape())
        continue;

      Builder b(graph, reshape2, mul->name());
      Value *permuted = b.permute(x, {0, 2, 1});
      // mul.Tensor takes the number operand of a mul.Scalar as well.
      Value *product = permute_first ? b.mul(A(permuted), other) : b.mul(other, A(permuted));
      if (product->shape() != reshape2->output()->shape() || product->dtype() != reshape2->output()->dtype()) {
        eraseDeadChain(graph, product);
        continue;
      }
      replaceAndErase(graph, reshape2, product);
      eraseDeadChain(graph, mul->output());
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantReshapePattern1(Registrar &r) {
  r.addPass(simplePass<Pattern1>("remove-redundant-reshape-pattern1",
                                 "reshape(1xAxBxC) + permute(0,1,3,2) + mul + reshape(AxCxB) -> permute + mul"));
}

} // namespace tico::passes
