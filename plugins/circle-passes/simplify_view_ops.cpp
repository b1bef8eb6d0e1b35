// simplify-view-ops: removes and composes data-movement views.
//
//   RESHAPE to the shape it already has                  -> removed
//   TRANSPOSE by the identity permutation                 -> removed
//   RESHAPE of a RESHAPE / SQUEEZE / EXPAND_DIMS output   -> RESHAPE of the original input
//   TRANSPOSE(TRANSPOSE(x, p), q)                         -> TRANSPOSE(x, p∘q), removed when
//                                                            p∘q is the identity
// The converter wraps every layout-sensitive operator in TRANSPOSEs, so consecutive
// convolutions leave TRANSPOSE [0,3,1,2] -> TRANSPOSE [0,2,3,1] pairs; this pass cancels them.
// The first view of a chain stays in place for its other readers; `dce` removes it once unused.
// Views never requantize, so chains are only composed when type and quantization agree.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

bool isReshapeLike(BuiltinOperator code) {
  return code == BuiltinOperator::RESHAPE || code == BuiltinOperator::SQUEEZE || code == BuiltinOperator::EXPAND_DIMS;
}

bool sameElements(const CircleTensor &a, const CircleTensor &b) { return a.type == b.type && sameQuantization(a, b); }

bool simplifyReshape(SubgraphEditor &e, int i) {
  const CircleOperator &op = e.op(i);
  if (op.inputs.empty() || op.outputs.size() != 1 || !e.validTensor(op.inputs[0]) || !e.validTensor(op.outputs[0]))
    return false;
  const int32_t in = op.inputs[0];
  if (bypassOp(e, i, in))
    return true; // same contract: a no-op
  int producer = e.producer(in);
  if (producer < 0 || !isReshapeLike(e.code(producer)) || e.op(producer).inputs.empty())
    return false;
  const int32_t source = e.op(producer).inputs[0];
  if (!e.validTensor(source) || !sameElements(e.tensor(source), e.tensor(in)))
    return false;
  e.setInput(i, 0, source);
  return true;
}

bool simplifyTranspose(SubgraphEditor &e, int i) {
  auto perm = transposePermutation(e, i);
  if (!perm)
    return false;
  const int32_t in = e.op(i).inputs[0];
  if (isIdentityPermutation(*perm))
    return bypassOp(e, i, in);
  int producer = e.producer(in);
  if (producer < 0)
    return false;
  auto inner = transposePermutation(e, producer);
  if (!inner)
    return false;
  const int32_t source = e.op(producer).inputs[0];
  if (!sameElements(e.tensor(source), e.tensor(in)))
    return false;
  std::vector<int64_t> composed = composeTransposes(*inner, *perm);
  if (isIdentityPermutation(composed) && bypassOp(e, i, source))
    return true;
  std::vector<int32_t> values(composed.begin(), composed.end());
  int32_t perm_tensor = e.addInt32Constant(values, {static_cast<int32_t>(values.size())},
                                           derivedName(e, e.op(i).outputs[0], "perm"));
  e.setInput(i, 0, source);
  e.setInput(i, 1, perm_tensor);
  return true;
}

class SimplifyViewOps final : public CirclePass {
public:
  explicit SimplifyViewOps(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [](SubgraphEditor &e, int i) {
      switch (e.code(i)) {
      case BuiltinOperator::RESHAPE: return simplifyReshape(e, i);
      case BuiltinOperator::TRANSPOSE: return simplifyTranspose(e, i);
      default: return false;
      }
    });
  }
};

} // namespace

void registerSimplifyViewOps(Registrar &r) {
  registerCirclePass<SimplifyViewOps>(
      r, "simplify-view-ops",
      "remove identity RESHAPE/TRANSPOSE, merge RESHAPE chains, compose TRANSPOSE pairs (cancelling inverse pairs)");
}

} // namespace tico::circle_passes
