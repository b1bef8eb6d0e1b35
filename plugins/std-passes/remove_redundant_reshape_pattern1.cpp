// remove-redundant-reshape-pattern1 (RemoveRedundantReshapePattern1):
//     x[A,B,C] -reshape-> [1,A,B,C] -permute[0,1,3,2]-> [1,A,C,B] -mul(s)-> -reshape-> [A,C,B]
//  => x[A,B,C] -permute[0,2,1]-> [A,C,B] -mul(s)-> [A,C,B]
// Every node in the chain must have no other user. The other mul operand must broadcast to
// [A,C,B] without the leading 1 (a number, or a tensor of rank <= 3): the original converter
// does not check this, and a rank-4 operand would change the result's rank.
#include "pass_support.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

// Matched from the closing reshape backwards, so that a rewrite erases only the visited
// node and nodes before it (the snapshot still holds the nodes after it).
bool fuseIntoPermutedMul(Node &matched, rewrite::Rewriter &rewriter) {
  Node *reshape2 = &matched;
  Graph &graph = rewriter.graph();
  if (!isReshape(*reshape2))
    return false;
  Node *mul = producerIf(reshape2->input(0), {"aten::mul.Tensor", "aten::mul.Scalar"});
  if (mul == nullptr || !hasSingleUse(graph, mul->output()) ||
      prependOne(reshape2->output()->shape()) != mul->output()->shape())
    return false;
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
    return false;
  const Argument &other = mul->arg(permute_first ? 1 : 0);
  if (other.isValue() && (other.asValue() == permute->output() || other.asValue()->rank() > 3))
    return false;
  Value *x = rank3BehindLeadingOne(graph, permute->input(0));
  if (x == nullptr)
    return false;

  Builder b = rewriter.builder(reshape2, mul->name());
  Value *permuted = b.permute(x, {0, 2, 1});
  // mul.Tensor takes the number operand of a mul.Scalar as well.
  Value *product = permute_first ? b.mul(A(permuted), other) : b.mul(other, A(permuted));
  if (product->shape() != reshape2->output()->shape() || product->dtype() != reshape2->output()->dtype()) {
    rewriter.eraseDeadChain(product);
    return false;
  }
  rewriter.replaceNode(reshape2, product);
  rewriter.eraseDeadChain(mul->output());
  return true;
}

} // namespace

void registerRemoveRedundantReshapePattern1(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-reshape-pattern1",
                      "reshape(1xAxBxC) + permute(0,1,3,2) + mul + reshape(AxCxB) -> permute + mul", kReshapeOps,
                      fuseIntoPermutedMul));
}

} // namespace tico::passes
