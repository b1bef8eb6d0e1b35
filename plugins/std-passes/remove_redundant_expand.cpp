// remove-redundant-expand (RemoveRedundantExpand): an expand whose result has its input's
// shape copies nothing; its users read the input.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {

void registerRemoveRedundantExpand(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-expand", "Remove expand ops whose result shape is their input's",
                      {"aten::expand.default", "aten::expand_copy.default"},
                      [](Node &node, rewrite::Rewriter &rewriter) {
                        if (!isTensorValue(node.arg(0)))
                          return false;
                        Value *x = node.input(0);
                        if (x->shape() != node.output()->shape() || x->dtype() != node.output()->dtype())
                          return false;
                        rewriter.replaceNode(&node, x);
                        return true;
                      }));
}

} // namespace tico::passes
