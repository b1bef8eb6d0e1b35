// merge-consecutive-cat (MergeConsecutiveCat): cat([a, cat([b, c], d), e], d) is
// cat([a, b, c, e], d): one CONCATENATION instead of two. Dims are compared after
// normalisation (-1 and rank-1 are the same dim).
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

// The normalised concatenation dim of `cat`, or nullopt for a cat of nothing but legacy empties.
std::optional<int64_t> catDim(const Node &cat) {
  for (const Value *v : cat.arg(0).asValues())
    if (!(v->rank() == 1 && v->shape()[0].isStatic() && v->shape()[0].value() == 0))
      return normalizeDim(cat.arg(1).asInt(), v->rank());
  return std::nullopt;
}

bool mergeCat(Node &matched, rewrite::Rewriter &rewriter) {
  Node *cat = &matched;
  auto dim = catDim(*cat);
  if (!dim)
    return false;
  std::vector<Value *> merged;
  bool any = false;
  for (Value *in : cat->arg(0).asValues()) {
    Node *inner = producerIf(in, {"aten::cat.default"});
    if (inner && catDim(*inner) == dim && inner->output()->dtype() == cat->output()->dtype()) {
      const auto &parts = inner->arg(0).asValues();
      merged.insert(merged.end(), parts.begin(), parts.end());
      any = true;
    } else {
      merged.push_back(in);
    }
  }
  if (!any)
    return false;
  std::vector<Value *> old = cat->arg(0).asValues();
  cat->setArg(0, Argument::values(merged));
  for (Value *v : old)
    rewriter.eraseDeadChain(v);
  return true;
}

} // namespace

void registerMergeConsecutiveCat(Registrar &r) {
  r.addPass(sweepPass("merge-consecutive-cat", "Merge a cat into the cat that consumes it along the same dim",
                      {"aten::cat.default"}, mergeCat));
}

} // namespace tico::passes
