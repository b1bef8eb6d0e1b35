// remove-redundant-slice (RemoveRedundantSlice): a slice whose result has its input's shape
// took every element (steps are positive), so its users read the input.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {

void registerRemoveRedundantSlice(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-slice", "Remove slices that keep their whole input",
                      {"aten::slice.Tensor", "aten::slice_copy.Tensor"}, [](Node &node, rewrite::Rewriter &rewriter) {
                        if (!isTensorValue(node.arg(0)) || node.input(0)->shape() != node.output()->shape())
                          return false;
                        rewriter.replaceNode(&node, node.input(0));
                        return true;
                      }));
}

} // namespace tico::passes
