// fuse-redundant-reshape-to-mean (FuseRedundantReshapeToMean): mean.dim followed by a reshape
// that only puts the reduced dims back as size 1 is mean.dim with keepdim=True. The mean must
// have no other user (its result type changes).
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

const std::string_view kReshape[] = {"aten::reshape.default", "aten::view.default",
                                                              "aten::_unsafe_view.default", "aten::view_copy.default"};

class FuseRedundantReshapeToMeanPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    // Matched from the reshape (the last node), so that only the visited node is erased.
    for (Node *reshape : snapshot(graph)) {
      if (!isOp(*reshape, kReshape) || !isTensorValue(reshape->arg(0)))
        continue;
      Node *mean = producerIf(reshape->input(0), {"aten::mean.dim"});
      if (mean == nullptr || !hasSingleUse(graph, mean->output()) || mean->arg("keepdim").asBool())
        continue;
      // The result type with keepdim=True, computed by the shape rule of mean.
      mean->setArg("keepdim", Argument::boolean(true));
      auto kept = inferOutputTypes(*mean);
      if (!kept || (*kept)[0].shape != reshape->output()->shape()) {
        mean->setArg("keepdim", Argument::boolean(false));
        continue;
      }
      mean->output()->setType(mean->output()->dtype(), (*kept)[0].shape);
      replaceAndErase(graph, reshape, mean->output());
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerFuseRedundantReshapeToMean(Registrar &r) {
  r.addPass(simplePass<FuseRedundantReshapeToMeanPass>(
      "fuse-redundant-reshape-to-mean", "Fold a reshape that restores reduced dims into mean(keepdim=True)"));
}

} // namespace tico::passes
