// remove-redundant-reshape-pattern2 (RemoveRedundantReshapePattern2):
//     x[A,B,C] -reshape-> [1,A,B,C] -permute[2,0,1,3]-> [B,1,A,C] -reshape-> [B, A*C]
//  => x[A,B,C] -permute[1,0,2]-> [B,A,C] -reshape-> [B, A*C]
// The first reshape and the permute must have no other user.
#include "pass_support.h"
#include "tico/ir/shape_utils.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

// Matched from the closing reshape backwards: a rewrite erases only nodes before it.
bool permuteBeforeReshape(Node &matched, rewrite::Rewriter &rewriter) {
  Node *reshape2 = &matched;
  Graph &graph = rewriter.graph();
  if (!isReshape(*reshape2))
    return false;
  Node *permute = producerIf(reshape2->input(0), {"aten::permute.default"});
  if (permute == nullptr || permute->arg(1).asInts() != std::vector<int64_t>{2, 0, 1, 3} ||
      !hasSingleUse(graph, permute->output()))
    return false;
  Value *x = rank3BehindLeadingOne(graph, permute->input(0));
  if (x == nullptr)
    return false;
  const Shape &p = permute->output()->shape();
  if (reshape2->output()->shape() != Shape{p[0], mulDims(p[2], p[3])})
    return false;
  Builder b = rewriter.builder(permute, permute->name());
  Value *permuted = b.permute(x, {1, 0, 2});
  reshape2->replaceInput(permute->output(), permuted);
  rewriter.eraseDeadChain(permute->output());
  return true;
}

} // namespace

void registerRemoveRedundantReshapePattern2(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-reshape-pattern2",
                      "reshape(1xAxBxC) + permute(2,0,1,3) + reshape(Bx(A*C)) -> permute + reshape", kReshapeOps,
                      permuteBeforeReshape));
}

} // namespace tico::passes
