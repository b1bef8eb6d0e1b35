// fuse-leading-unsqueeze-reshape (FuseLeadingUnsqueezeReshape):
//     x -reshape(s1)-> -permute(p)-> -reshape([1]*k + p(s1))->
//  => x -reshape([1]*k + s1)-> -permute([0..k-1] + [d+k for d in p])->
// The closing reshape only prepends size-1 dims, so it moves in front of the permute and
// merges with the first reshape (one RESHAPE fewer).
#include "pass_support.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

bool fuseLeadingUnsqueeze(Node &matched, rewrite::Rewriter &rewriter) {
  Node *back = &matched;
  if (!isReshape(*back))
    return false;
  Node *permute = producerIf(back->input(0), {"aten::permute.default"});
  if (!permute || !isTensorValue(permute->arg(0)))
    return false;
  Node *front = permute->input(0)->producer();
  if (!front || !isReshape(*front))
    return false;
  const Shape &back_shape = back->output()->shape(), &permuted = permute->output()->shape();
  if (back_shape.size() <= permuted.size())
    return false;
  const std::size_t k = back_shape.size() - permuted.size();
  bool leading = true;
  for (std::size_t i = 0; i < k; ++i)
    leading &= back_shape[i].isStatic() && back_shape[i].value() == 1;
  if (!leading || Shape(back_shape.begin() + static_cast<std::ptrdiff_t>(k), back_shape.end()) != permuted)
    return false;
  // [1]*k + the first reshape's size list (kept as written, SymInts included).
  std::vector<SymIntElem> sizes(k, SymIntElem{1, nullptr});
  const Argument &front_sizes = front->arg(1);
  if (front_sizes.kind() == Argument::Kind::IntList)
    for (int64_t v : front_sizes.asInts())
      sizes.push_back({v, nullptr});
  else
    for (const SymIntElem &e : front_sizes.asSymInts())
      sizes.push_back(e);
  Shape new_shape(k, Dim(1));
  new_shape.insert(new_shape.end(), front->output()->shape().begin(), front->output()->shape().end());
  std::vector<int64_t> perm;
  for (std::size_t i = 0; i < k; ++i)
    perm.push_back(static_cast<int64_t>(i));
  for (int64_t d : permute->arg(1).asInts())
    perm.push_back((d < 0 ? d + static_cast<int64_t>(permuted.size()) : d) + static_cast<int64_t>(k));
  Builder b = rewriter.builderFor(*back);
  Value *reshaped = b.typed("aten::reshape.default", {{"", A(front->input(0))}, {"", Argument::symInts(sizes)}},
                            front->output()->dtype(), new_shape);
  Value *result = b.permute(reshaped, perm);
  rewriter.replaceNode(back, result);
  rewriter.eraseDeadChain(permute->output());
  return true;
}

} // namespace

void registerFuseLeadingUnsqueezeReshape(Registrar &r) {
  r.addPass(sweepPass("fuse-leading-unsqueeze-reshape",
                      "reshape + permute + reshape that only prepends 1s -> one reshape + permute", kReshapeOps,
                      fuseLeadingUnsqueeze));
}

} // namespace tico::passes
