// lower-copy (LowerCopy): aten::copy(dst, src) computes src broadcast to dst's shape and cast
// to dst's dtype (dst's contents are overwritten, so only its type matters):
//   same shape and dtype  -> src itself
//   otherwise             -> expand(src, dst.shape) and/or _to_copy(src, dst.dtype)
// The original converter ignores the dtype; the cast keeps PyTorch's result.
#include "builder.h"
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

class LowerCopyPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::copy.default"}) || !isTensorValue(node->arg(1)))
        continue;
      Value *src = node->input(1);
      const Value *out = node->output();
      Builder b(graph, node, node->name());
      Value *result = src;
      if (result->dtype() != out->dtype())
        result = b.cast(result, out->dtype());
      if (result->shape() != out->shape()) {
        // dst has exactly the result's shape, so every symbolic dim has a source.
        Value *expanded = b.expand(result, out->shape(), {node->input(0)});
        if (!expanded) {
          if (result != src)
            eraseDeadChain(graph, result);
          continue;
        }
        result = expanded;
      }
      replaceAndErase(graph, node, result);
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerLowerCopy(Registrar &r) {
  r.addPass(simplePass<LowerCopyPass>("lower-copy",
                                      "Replace aten::copy by its source, broadcast (expand) and cast as needed"));
}

} // namespace tico::passes
