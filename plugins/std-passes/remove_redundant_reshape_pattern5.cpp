// remove-redundant-reshape-pattern5 (RemoveRedundantReshapePattern5): a reshape to the shape
// its input already has does nothing; users read the input.
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {

void registerRemoveRedundantReshapePattern5(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-reshape-pattern5", "Remove reshapes to the input's own shape", kReshapeOps,
                      [](Node &node, rewrite::Rewriter &rewriter) {
                        if (!isReshape(node) || node.input(0)->shape() != node.output()->shape())
                          return false;
                        rewriter.replaceNode(&node, node.input(0));
                        return true;
                      }));
}

} // namespace tico::passes
