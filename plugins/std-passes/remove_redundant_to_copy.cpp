// remove-redundant-to-copy (RemoveRedundantToCopy): _to_copy / to.dtype / to.dtype_layout that
// keep the dtype and the strided layout, with a default or contiguous memory format, copy
// nothing visible in Circle; users read the input.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

bool removeRedundantToCopy(Node &node, rewrite::Rewriter &rewriter) {
  if (!isTensorValue(node.arg(0)))
    return false;
  Value *x = node.input(0);
  const Argument *dtype = node.findArg("dtype");
  const Argument *layout = node.findArg("layout");
  const Argument *format = node.findArg("memory_format");
  if (dtype && !dtype->isNone() && dtype->asScalarType() != x->dtype())
    return false;
  if (layout && !layout->isNone() && layout->asLayout() != Layout::Strided)
    return false;
  if (format && !format->isNone() && format->asMemoryFormat() != MemoryFormat::Contiguous &&
      format->asMemoryFormat() != MemoryFormat::Preserve)
    return false;
  if (node.output()->dtype() != x->dtype())
    return false;
  rewriter.replaceNode(&node, x);
  return true;
}

} // namespace

void registerRemoveRedundantToCopy(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-to-copy", "Remove _to_copy/to ops that keep dtype and layout",
                      {"aten::_to_copy.default", "aten::to.dtype", "aten::to.dtype_layout"}, removeRedundantToCopy));
}

} // namespace tico::passes
