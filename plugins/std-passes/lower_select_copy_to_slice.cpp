// lower-select-copy-to-slice (LowerSelectCopyToSlice): select(x, d, i) with a constant index
// becomes reshape(slice(x, d, i, i+1), select's shape): a STRIDED_SLICE and a RESHAPE instead
// of a GATHER, which NPUs support better. A negative index is normalised when the dim is
// static; on a symbolic dim it slices from the end (the original converter would produce an
// empty slice for i = -1).
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

#include <limits>

namespace tico::passes {
namespace {

bool selectToSlice(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  if (!isTensorValue(node->arg(0)))
    return false;
  auto index = staticInt(node->arg(2));
  if (!index)
    return false;
  Value *x = node->input(0);
  const int64_t dim = normalizeDim(node->arg(1).asInt(), x->rank());
  const Dim &size = x->shape()[static_cast<std::size_t>(dim)];
  if (size.isSymbolic() && (*index >= size.value() || -*index > size.value()))
    return false; // outside the example size: nothing to check the slice against
  int64_t start = *index;
  if (start < 0 && size.isStatic())
    start += size.value();
  int64_t end = start + 1;
  if (start < 0 && end == 0)
    end = std::numeric_limits<int64_t>::max(); // the last element of a symbolic dim
  Builder b = rewriter.builderFor(*node);
  Value *slice = b.make("aten::slice.Tensor", {A(x), A(dim), A(start), A(end)});
  Value *reshape = b.reshape(slice, node->output()->shape());
  if (!reshape) {
    rewriter.eraseDeadChain(slice);
    return false;
  }
  rewriter.replaceNode(node, reshape);
  return true;
}

} // namespace

void registerLowerSelectCopyToSlice(Registrar &r) {
  r.addPass(sweepPass("lower-select-copy-to-slice", "Rewrite select with a constant index as slice + reshape",
                      {"aten::select.int", "aten::select_copy.int"}, selectToSlice));
}

} // namespace tico::passes
