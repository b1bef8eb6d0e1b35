// propagate-qparam-forward (the original's PropagateQParamForward): a data-movement op (permute,
// transpose, view, reshape, _unsafe_view, squeeze, unsqueeze, clone, flatten, slice) or a max/avg
// pool whose input is quantized and whose result has no parameters yet computes the quantized
// tensor: its result gets the input's dtype and parameters (Circle's data-movement and pooling
// kernels require equal parameters; a quantize after it with other ones is then a requantize).
// A neg (rotate_half of rotary embeddings) with no quantize after it gets the input's scale and
// the zero point that negates codes exactly (the same one when it is 0 in a signed type).
//
//   %p: f32[1, 8, 8, 3] = aten::permute.default(%x, [0, 2, 3, 1])      %x: u8 {q: ...}
//     -> %p: u8[1, 8, 8, 3] {q: same} = aten::permute.default(%x, [0, 2, 3, 1])
//
// Per-channel parameters follow a permute (the axis moves with its dimension); other ops keep
// per-channel tensors as they are (check-missing-qparams reports them). A permute of a
// quantized constant (a conv weight going channels-last) becomes a zero-copy permuted view of
// the constant with the parameters, the original's QParamSafeConstPropPass for this case.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ir/shape_utils.h"
#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/driver.h"

namespace tico::quant_passes {
namespace {

bool propagateForward(Node &node, rewrite::Rewriter &rewriter) {
  if (node.numOutputs() != 1 || node.numArgs() == 0 || !node.arg(0).isValue())
    return false;
  Value *x = node.input(0);
  Value *y = node.output();
  if (!x->isQuantized() || y->isQuantized() || y->dtype() != DType::Float32 || x->quant()->isPerBlock())
    return false;
  QuantParams q = *x->quant();
  if (node.opId() == ops::aten::neg_default) {
    if (!q.isPerTensor() || x->isConstant() || !isQuantizedDType(x->dtype()))
      return false;
    // -x on the same grid: a signed tensor with zero point 0 keeps its parameters (the original's
    // rule for int16; the one code -min saturates), any other mirrors its zero point about the
    // middle of the range, which negates every code exactly.
    if (q.zero_point[0] != 0 || qmin(x->dtype()) >= 0)
      q.zero_point[0] = qmin(x->dtype()) + qmax(x->dtype()) - q.zero_point[0];
    y->setType(x->dtype(), y->shape());
    y->setQuant(std::move(q));
    for (Node *user : y->users())
      rewriter.revisit(user);
    return true;
  }
  const bool permute = node.opId() == ops::aten::permute_default;
  std::vector<int64_t> perm;
  if (permute) {
    perm = normalizeDims(node.arg(1).asInts(), x->rank());
    if (q.axis) {
      // The result dim that reads the input's axis (found once: comparing later dims with the
      // updated axis would move it again, e.g. [1, 2, 3, 0] sent axis 1 to 0 and then to 3).
      const int64_t axis = *q.axis;
      for (std::size_t i = 0; i < perm.size(); ++i)
        if (perm[i] == axis)
          q.axis = static_cast<int64_t>(i);
    }
  } else if (!q.isPerTensor()) {
    return false;
  }
  if (x->isConstant()) {
    if (!permute)
      return false;
    rewrite::Builder b = rewriter.builderFor(node);
    Value *view = b.permuteOrView(x, perm, "_q");
    if (!view->isConstant())
      return false;
    view->setType(x->dtype(), view->shape());
    view->setQuant(std::move(q));
    rewriter.replaceNode(&node, view);
    return true;
  }
  y->setType(x->dtype(), y->shape());
  y->setQuant(std::move(q));
  for (Node *user : y->users())
    rewriter.revisit(user);
  return true;
}

} // namespace

void registerPropagateQParamForward(Registrar &r) {
  namespace aten = tico::ops::aten;
  rewrite::DriverConfig config;
  config.erase_dead = true;
  std::vector<OpKey> roots = dataMovementRoots();
  for (const OpKey &key : quantizedPoolRoots())
    roots.push_back(key);
  roots.push_back(aten::neg_default.key());
  r.addPass(rewrite::patternPassSpec(
      "propagate-qparam-forward",
      "Give the results of data-movement ops on quantized tensors the input's quantization (PropagateQParamForward)",
      roots, propagateForward, config));
}

} // namespace tico::quant_passes
