// fuse-redundant-reshape-to-mean (FuseRedundantReshapeToMean): mean.dim followed by a reshape
// that only puts the reduced dims back as size 1 is mean.dim with keepdim=True. The mean must
// have no other user (its result type changes).
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

const std::string_view kReshape[] = {"aten::reshape.default", "aten::view.default", "aten::_unsafe_view.default",
                                     "aten::view_copy.default"};

// Matched from the reshape (the last node), so that only the visited node is erased.
bool fuseIntoMean(Node &reshape, rewrite::Rewriter &rewriter) {
  if (!isTensorValue(reshape.arg(0)))
    return false;
  Node *mean = producerIf(reshape.input(0), {"aten::mean.dim"});
  if (mean == nullptr || !hasSingleUse(rewriter.graph(), mean->output()) || mean->arg("keepdim").asBool())
    return false;
  // The result type with keepdim=True, computed by the type rule of mean.
  mean->setArg("keepdim", Argument::boolean(true));
  auto kept = inferTypes(*rewriter.registry(), *mean);
  if (!kept || (*kept)[0].shape != reshape.output()->shape()) {
    mean->setArg("keepdim", Argument::boolean(false));
    return false;
  }
  mean->output()->setType(mean->output()->dtype(), (*kept)[0].shape);
  rewriter.revisit(mean);
  rewriter.replaceNode(&reshape, mean->output());
  return true;
}

} // namespace

void registerFuseRedundantReshapeToMean(Registrar &r) {
  r.addPass(sweepPass("fuse-redundant-reshape-to-mean",
                      "Fold a reshape that restores reduced dims into mean(keepdim=True)", kReshape, fuseIntoMean));
}

} // namespace tico::passes
