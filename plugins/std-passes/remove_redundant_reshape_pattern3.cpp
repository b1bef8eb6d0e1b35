// remove-redundant-reshape-pattern3 (RemoveRedundantReshapePattern3):
//     reshape(softmax(add(reshape(a), reshape(b)), dim=-1))  =>  softmax(add(a, b), dim=-1)
// when every reshape only adds or removes leading size-1 dims and add(a, b) already has the
// final shape. Broadcasting aligns trailing dims and the softmax runs over the last dim, so
// neither sees the leading 1s. (The original converter only compares shapes, which would
// also accept reshapes that reorder elements.) The add and the softmax must have no other
// user. Matches _softmax and _safe_softmax (what run_decompositions() leaves) and softmax.int
// (what torch.export.export records).
#include "pass_support.h"
#include "passes.h"
#include "reshape_match.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

bool addBeforeSoftmax(Node &matched, rewrite::Rewriter &rewriter) {
  Node *outer = &matched;
  Graph &graph = rewriter.graph();
  if (!isReshape(*outer))
    return false;
  Node *softmax = producerIf(outer->input(0), {"aten::_softmax.default", "aten::_safe_softmax.default", "aten::softmax.int"});
  if (!softmax || !hasSingleUse(graph, softmax->output()) || !isTensorValue(softmax->arg(0)))
    return false;
  const Value *sm_out = softmax->output();
  if (normalizeDim(softmax->arg("dim").asInt(), sm_out->rank()) != sm_out->rank() - 1)
    return false;
  Node *add = producerIf(softmax->input(0), {"aten::add.Tensor"});
  if (!add || !hasSingleUse(graph, add->output()) || !isTensorValue(add->arg(0)) || !isTensorValue(add->arg(1)))
    return false;
  if (!add->arg("alpha").isNumber() || add->arg("alpha").asDouble() != 1.0)
    return false;
  Node *ra = add->input(0)->producer(), *rb = add->input(1)->producer();
  if (!ra || !rb || !isReshape(*ra) || !isReshape(*rb))
    return false;
  Value *a = ra->input(0), *b = rb->input(0);
  const Shape &target = outer->output()->shape();
  auto sum_shape = broadcastShapes(a->shape(), b->shape());
  if (!sum_shape || *sum_shape != target || !onlyLeadingOnesChange(a->shape(), ra->output()->shape()) ||
      !onlyLeadingOnesChange(b->shape(), rb->output()->shape()) ||
      !onlyLeadingOnesChange(sm_out->shape(), target))
    return false;
  Builder builder = rewriter.builder(outer, softmax->name());
  Value *sum = builder.add(A(a), A(b));
  std::vector<NamedArg> args{{"", A(sum)}, {"", A(int64_t{-1})}};
  for (std::size_t i = 2; i < softmax->numArgs(); ++i)
    args.push_back(softmax->args()[i]);
  Value *result = builder.make(softmax->op().str(), std::move(args));
  if (result->dtype() != outer->output()->dtype()) {
    rewriter.eraseDeadChain(result);
    return false;
  }
  rewriter.replaceNode(outer, result);
  rewriter.eraseDeadChain(softmax->output());
  return true;
}

} // namespace

void registerRemoveRedundantReshapePattern3(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-reshape-pattern3",
                      "reshape(softmax(add(reshape(a), reshape(b)))) -> softmax(add(a, b)) when the "
                      "reshapes only add leading 1s",
                      kReshapeOps, addBeforeSoftmax));
}

} // namespace tico::passes
