// lower-index-select-to-slice (LowerIndexSelectToSlice): index_select(x, d, [i]) with a
// constant single-element index is slice(x, d, i, i+1): a STRIDED_SLICE instead of a GATHER.
// (The original also appends a reshape to the same shape, which remove-redundant-reshape-
// pattern5 would drop again.) Negative or out-of-range indices are left to the gather, which
// reports them.
#include "constant_index.h"
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

bool lowerToSlice(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  if (!isTensorValue(node->arg(2)))
    return false;
  auto values = constantIndices(node->input(2));
  if (!values || values->size() != 1)
    return false;
  Value *x = node->input(0);
  const int64_t dim = normalizeDim(node->arg(1).asInt(), x->rank());
  const Dim &size = x->shape()[static_cast<std::size_t>(dim)];
  const int64_t i = values->front();
  if (i < 0 || (size.isStatic() && i >= size.value()) || (size.isSymbolic() && i >= size.value()))
    return false;
  Builder b = rewriter.builderFor(*node);
  Value *slice = b.make("aten::slice.Tensor", {A(x), A(dim), A(i), A(i + 1)});
  if (slice->shape() != node->output()->shape()) {
    rewriter.eraseDeadChain(slice);
    return false;
  }
  rewriter.replaceNode(node, slice);
  return true;
}

} // namespace

void registerLowerIndexSelectToSlice(Registrar &r) {
  r.addPass(sweepPass("lower-index-select-to-slice", "Rewrite index_select with one constant index as a slice",
                      {"aten::index_select.default"}, lowerToSlice));
}

} // namespace tico::passes
