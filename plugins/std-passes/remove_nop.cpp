// remove-nop: deletes ops that return their input unchanged, so neither later passes nor the
// serializer have to look through them.
//
//   clone and contiguous (any memory format), alias, alias_copy, detach, detach_copy, detach_
//   (autograd bookkeeping only), lift_fresh_copy, prims.view_of
//   _to_copy / to.dtype / to.dtype_layout / to.device / to.other / to.prim_* that keep the
//   dtype and the strided layout (a device move is a no-op on the target)
//   expand to the shape the input already has
//   dropout(train=False), native_dropout(train=False) whose mask is unused
//
// Memory formats (channels_last, ...) only change strides PyTorch-side; values are the same,
// and Circle tensors have no strides, so those clones go too.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

bool keepsLayout(const Argument *layout) {
  return !layout || layout->isNone() || layout->asLayout() == Layout::Strided;
}

// The value `node` merely forwards, or null when it computes something.
Value *forwardedInput(const Graph &graph, const Node &node) {
  if (node.numOutputs() == 0 || node.numArgs() == 0 || !node.arg(0).isValue())
    return nullptr;
  Value *in = node.input(0);
  const Value *out = node.output(0);
  if (in->dtype() != out->dtype() || in->shape() != out->shape())
    return nullptr;
  if (isOp(node, {"aten::alias.default", "aten::alias_copy.default", "aten::detach.default",
                  "aten::detach_copy.default", "aten::detach_.default", "aten::lift_fresh_copy.default",
                  "prims::view_of.default"}))
    return in;
  if (isOp(node, {"aten::clone.default", "aten::contiguous.default"}))
    return in;
  if (isOp(node, {"aten::_to_copy.default", "aten::to.dtype", "aten::to.dtype_layout", "aten::to.device",
                  "aten::to.other", "aten::to.prim_dtype", "aten::to.prim_Device"}))
    return keepsLayout(node.findArg("layout")) ? in : nullptr;
  // An expand to the shape the input already has (torch.export writes these around bmm).
  if (isOp(node, {"aten::expand.default", "aten::expand_copy.default"}))
    return in;
  if (isOp(node, {"aten::dropout.default"}))
    return node.arg("train").asBool() ? nullptr : in;
  if (isOp(node, {"aten::native_dropout.default"})) {
    const Argument &train = node.arg("train");
    const Value *mask = node.output(1);
    bool eval = !train.isNone() && !train.asBool();
    return eval && !mask->hasUsers() && !graph.isGraphOutput(mask) ? in : nullptr;
  }
  return nullptr;
}

// Every node: forwardedInput recognises the ops that forward their input.
bool removeNop(Node &node, rewrite::Rewriter &rewriter) {
  Value *in = forwardedInput(rewriter.graph(), node);
  if (!in)
    return false;
  rewriter.replaceAllUsesWith(node.output(0), in);
  rewriter.eraseNode(&node);
  return true;
}

} // namespace

void registerRemoveNop(Registrar &r) {
  r.addPass(sweepPass("remove-nop",
                      "Remove ops that return their input unchanged (clone, alias, detach, same-dtype casts and "
                      "device moves, eval-mode dropout)",
                      {}, removeNop));
}

} // namespace tico::passes
