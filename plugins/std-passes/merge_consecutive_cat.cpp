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
      return wrapDim(cat.arg(1).asInt(), v->rank());
  return std::nullopt;
}

class MergeConsecutiveCatPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *cat : snapshot(graph)) {
      if (!isOp(*cat, {"aten::cat.default"}))
        continue;
      auto dim = catDim(*cat);
      if (!dim)
        continue;
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
        continue;
      std::vector<Value *> old = cat->arg(0).asValues();
      cat->setArg(0, Argument::values(merged));
      for (Value *v : old)
        eraseDeadChain(graph, v);
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerMergeConsecutiveCat(Registrar &r) {
  r.addPass(simplePass<MergeConsecutiveCatPass>("merge-consecutive-cat",
                                                "Merge a cat into the cat that consumes it along the same dim"));
}

} // namespace tico::passes
