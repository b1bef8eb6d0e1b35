// convert-repeat-to-expand-copy (ConvertRepeatToExpandCopy): repeat(x, r) is a broadcast when
// every repeated dim of x has size 1 (and new leading dims are just repeats of everything):
// it becomes expand_copy(x, size), BROADCAST_TO in Circle instead of a chain of concatenations.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

bool repeatToExpand(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  if (node->arg(1).kind() != Argument::Kind::IntList)
    return false;
  Value *x = node->input(0);
  const std::vector<int64_t> &repeats = node->arg(1).asInts();
  if (repeats.size() < x->shape().size())
    return false;
  std::size_t lead = repeats.size() - x->shape().size();
  std::vector<SymIntElem> size;
  bool ok = true;
  for (std::size_t i = 0; i < repeats.size() && ok; ++i) {
    if (i < lead) {
      size.push_back({repeats[i], nullptr});
      continue;
    }
    const Dim &d = x->shape()[i - lead];
    if (repeats[i] == 1)
      size.push_back({-1, nullptr}); // keeps the dim, symbolic or not
    else if (d.isStatic() && d.value() == 1)
      size.push_back({repeats[i], nullptr});
    else
      ok = false;
  }
  if (!ok)
    return false;
  const Value *out = node->output();
  Builder b = rewriter.builderFor(*node);
  Value *expand = b.typed("aten::expand_copy.default", {{"", A(x)}, {"", Argument::symInts(size)}},
                          out->dtype(), out->shape());
  rewriter.replaceNode(node, expand);
  return true;
}

} // namespace

void registerConvertRepeatToExpandCopy(Registrar &r) {
  r.addPass(sweepPass("convert-repeat-to-expand-copy", "Rewrite repeat over size-1 dims as expand_copy (a broadcast)",
                      {"aten::repeat.default"}, repeatToExpand));
}

} // namespace tico::passes
