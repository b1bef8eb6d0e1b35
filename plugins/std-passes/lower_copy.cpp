// lower-copy (LowerCopy): aten::copy(dst, src) computes src broadcast to dst's shape and cast
// to dst's dtype (dst's contents are overwritten, so only its type matters):
//   same shape and dtype  -> src itself
//   otherwise             -> expand(src, dst.shape) and/or _to_copy(src, dst.dtype)
// The original converter ignores the dtype; the cast keeps PyTorch's result.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

bool lowerCopy(Node &node, rewrite::Rewriter &rewriter) {
  if (!isTensorValue(node.arg(1)))
    return false;
  Value *src = node.input(1);
  const Value *out = node.output();
  Builder b = rewriter.builderFor(node);
  Value *result = src;
  if (result->dtype() != out->dtype())
    result = b.cast(result, out->dtype());
  if (result->shape() != out->shape()) {
    // dst has exactly the result's shape, so every symbolic dim has a source.
    Value *expanded = b.expand(result, out->shape(), {node.input(0)});
    if (!expanded) {
      if (result != src)
        rewriter.eraseDeadChain(result);
      return false;
    }
    result = expanded;
  }
  rewriter.replaceNode(&node, result);
  return true;
}

} // namespace

void registerLowerCopy(Registrar &r) {
  r.addPass(sweepPass("lower-copy", "Replace aten::copy by its source, broadcast (expand) and cast as needed",
                      {"aten::copy.default"}, lowerCopy));
}

} // namespace tico::passes
