// convert-layout-op-to-reshape (ConvertLayoutOpToReshape): view, view_copy, _unsafe_view,
// unsqueeze(_copy) and squeeze(_copy) only re-interpret the element order, so each becomes
// aten::reshape to its result shape. One op for all of them is what the reshape clean-ups
// (remove-redundant-reshape-pattern*, fuse-*) match.
//
// A view's size list is kept as written (with its SymInts); for unsqueeze/squeeze the size
// list is built from the result shape: static dims as ints, one symbolic dim as -1, several
// as sym_size of the input's matching dims.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

constexpr std::string_view kViewOps[] = {"aten::view.default", "aten::view_copy.default", "aten::_unsafe_view.default"};
constexpr std::string_view kLayoutOps[] = {
    "aten::view.default",         "aten::view_copy.default",        "aten::_unsafe_view.default",
    "aten::unsqueeze.default",    "aten::unsqueeze_copy.default",   "aten::squeeze.default",
    "aten::squeeze.dim",          "aten::squeeze.dims",             "aten::squeeze_copy.default",
    "aten::squeeze_copy.dim",     "aten::squeeze_copy.dims"};

bool convertToReshape(Node &node, rewrite::Rewriter &rewriter) {
  if (!isTensorValue(node.arg(0)))
    return false;
  Value *x = node.input(0);
  const Value *out = node.output();
  Builder b = rewriter.builderFor(node);
  Value *reshape = nullptr;
  if (isOp(node, kViewOps))
    reshape = b.typed("aten::reshape.default", {{"", A(x)}, {"", node.arg(1)}}, out->dtype(), out->shape());
  else
    reshape = b.reshape(x, out->shape());
  if (!reshape)
    return false;
  rewriter.replaceNode(&node, reshape);
  return true;
}

} // namespace

void registerConvertLayoutOpToReshape(Registrar &r) {
  r.addPass(sweepPass("convert-layout-op-to-reshape", "Rewrite view, unsqueeze and squeeze as aten::reshape",
                      kLayoutOps, convertToReshape));
}

} // namespace tico::passes
