// remove-redundant-permute-pattern1 (RemoveRedundantPermutePattern1): two permutes in a row
// are one permute with the composed order, p[i] = first[second[i]], or nothing at all when
// that order is the identity. The first permute must have no other user (otherwise both
// would still be computed).
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

const std::string_view kPermute[] = {"aten::permute.default", "aten::permute_copy.default"};

std::vector<int64_t> normalized(const std::vector<int64_t> &dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    out.push_back(normalizeDim(d, static_cast<int64_t>(dims.size())));
  return out;
}

bool fusePermutes(Node &matched, rewrite::Rewriter &rewriter) {
  Node *second = &matched;
  Graph &graph = rewriter.graph();
  if (!isTensorValue(second->arg(0)))
    return false;
  Value *mid = second->input(0);
  Node *first = producerIf(mid, kPermute);
  if (!first || !hasSingleUse(graph, mid) || !isTensorValue(first->arg(0)))
    return false;
  std::vector<int64_t> d1 = normalized(first->arg(1).asInts()), d2 = normalized(second->arg(1).asInts());
  if (d1.size() != d2.size())
    return false;
  std::vector<int64_t> fused;
  bool identity = true;
  for (std::size_t i = 0; i < d2.size(); ++i) {
    fused.push_back(d1[static_cast<std::size_t>(d2[i])]);
    identity &= fused.back() == static_cast<int64_t>(i);
  }
  Value *x = first->input(0);
  Value *replacement = x;
  if (!identity) {
    Builder b = rewriter.builderFor(*second);
    replacement = b.permute(x, fused);
  }
  rewriter.replaceNode(second, replacement);
  rewriter.eraseDeadChain(mid);
  return true;
}

} // namespace

void registerRemoveRedundantPermutePattern1(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-permute-pattern1", "Fuse two consecutive permutes into one (or none)",
                      kPermute, fusePermutes));
}

} // namespace tico::passes
