// onert-op-forms: operators onert 0.2 cannot load, has no CPU kernel for, refuses for their
// tensor type or miscomputes become operators it runs that compute the same values.
//
//   SLICE (not float32/uint8)      STRIDED_SLICE
//   SPLIT_V (writes zeros)         one STRIDED_SLICE per output
//   TILE (not float32)             CONCATENATION of copies per tiled axis
//   REVERSE_V2 (not float32, or    GATHER at reversed constant indices
//     several axes)
//   MIRROR_PAD                     GATHER at reflected constant indices
//   RESIZE_NEAREST_NEIGHBOR        GATHER rows and columns at the sampled indices
//   GATHER_ND                      GATHER on the flattened params at the linear index
//   CONCATENATION of an empty operand   the operand dropped (onert sizes empty tensors as 1)
//   CUMSUM (int32/int64)           log2(n) rounds of shifted additions (exact)
//   SELECT_V2 (int32/int64/bool)   arithmetic / logical select
//   MAXIMUM (int32/int64)          complemented MINIMUM
//   ABS (int32/int64)              x * (1 - 2 * cast(x < 0))
//   REDUCE_MIN                     complemented REDUCE_MAX
//   CEIL, RELU_N1_TO_1, PRELU, HARD_SWISH   element-wise forms
//   RMS_NORM of rank < 3           EXPAND_DIMS, RMS_NORM, SQUEEZE
//   BATCH_MATMUL, constant LHS     the LHS read through a RESHAPE to its own shape
//   INSTANCE_NORM (no CPU kernel)  MEAN over the spatial axes, SUB, MUL, MEAN, ADD epsilon,
//                                  RSQRT, MUL, MUL gamma, ADD beta (with the fused activation)
//   SUM / MEAN / REDUCE_* of rank 5+  RESHAPE merging adjacent reduced / kept dims to rank <= 4,
//                                  the reduction, RESHAPE to the output
//   BATCH_MATMUL of rank 5+ (equal batch dims)   the batch dims merged: RESHAPEs to rank 3
//
// Which (operator, type) pairs need a form comes from the measured matrix (onert_support.h,
// docs/onert.md). The forms may use types onert still lacks for the new operator (GATHER on
// int64, CONCATENATION on bool): onert-type-carriers, which runs after this pass, moves those
// into a carrier type. Shapes: every new tensor keeps the dynamic dims of what it stands for;
// forms with constant indices need the dims they index to be static (otherwise the operator is
// left alone). The operator's output tensors are written by the last new operator, so the
// interface and every reader are unchanged.
#include "onert_forms.h"
#include "pass_registration.h"
#include "passes.h"

namespace tico::circle_passes {
namespace {

bool rewrite(SubgraphEditor &e, int i) {
  using namespace onert_forms;
  if (e.sideEffects(i))
    return false;
  for (auto form : {rewriteSlice, rewriteSplitV, rewriteTile, rewriteReverse, rewriteMirrorPad, rewriteResizeNearest,
                    rewriteGatherNd, rewriteEmptyConcatOperands, rewriteIntegerCumsum, rewriteSelect,
                    rewriteIntegerMaximum, rewriteIntegerAbs, rewriteReduceMin, rewriteCeil, rewriteReluN1To1,
                    rewritePrelu, rewriteHardSwish, rewriteLowRankRmsNorm, rewriteConstantLhsBatchMatmul, rewriteInstanceNorm,
                    rewriteHighRankReduction, rewriteHighRankBatchMatmul})
    if (form(e, i))
      return true;
  return false;
}

class OnertOpForms final : public CirclePass {
public:
  explicit OnertOpForms(const Options &) {}
  bool run(CircleModel &model, PassContext &) override { return sweepToFixedPoint(model, rewrite); }
};

} // namespace

void registerOnertOpForms(Registrar &r) {
  registerCirclePass<OnertOpForms>(
      r, "onert-op-forms",
      "replace operators onert 0.2 lacks or miscomputes (SLICE/TILE/REVERSE_V2/SELECT_V2/MAXIMUM/ABS on integers, "
      "SPLIT_V, MIRROR_PAD, RESIZE_NEAREST_NEIGHBOR, GATHER_ND, REDUCE_MIN, CEIL, RELU_N1_TO_1, PRELU, HARD_SWISH, "
      "RMS_NORM below rank 3, BATCH_MATMUL with a constant LHS, INSTANCE_NORM) by "
      "operators it runs that compute the same values");
}

} // namespace tico::circle_passes
