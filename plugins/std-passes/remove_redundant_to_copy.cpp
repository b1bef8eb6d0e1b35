// remove-redundant-to-copy (RemoveRedundantToCopy): _to_copy / to.dtype / to.dtype_layout that
// keep the dtype and the strided layout, with a default or contiguous memory format, copy
// nothing visible in Circle; users read the input.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

class RemoveRedundantToCopyPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::_to_copy.default", "aten::to.dtype", "aten::to.dtype_layout"}) ||
          !isTensorValue(node->arg(0)))
        continue;
      Value *x = node->input(0);
      const Argument *dtype = node->findArg("dtype");
      const Argument *layout = node->findArg("layout");
      const Argument *format = node->findArg("memory_format");
      if (dtype && !dtype->isNone() && dtype->asScalarType() != x->dtype())
        continue;
      if (layout && !layout->isNone() && layout->asLayout() != Layout::Strided)
        continue;
      if (format && !format->isNone() && format->asMemoryFormat() != MemoryFormat::Contiguous &&
          format->asMemoryFormat() != MemoryFormat::Preserve)
        continue;
      if (node->output()->dtype() != x->dtype())
        continue;
      replaceAndErase(graph, node, x);
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerRemoveRedundantToCopy(Registrar &r) {
  r.addPass(simplePass<RemoveRedundantToCopyPass>("remove-redundant-to-copy",
                                                  "Remove _to_copy/to ops that keep dtype and layout"));
}

} // namespace tico::passes
