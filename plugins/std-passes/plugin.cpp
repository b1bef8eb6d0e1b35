// libtico-std-passes: the generic legalization passes of the default pipeline.
#include "passes.h"
#include "type_rules.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  using namespace tico::passes;
  // The result-type rules of ATen ops, which the node builder of every plugin types with.
  registerTypeRules(r);
  registerRemoveDeadCode(r);
  registerFoldConstantViews(r);
  registerFunctionalize(r);
  registerStateWrites(r);
  registerHalfPrecisionPolicy(r);
  registerFillMetaVal(r);
  registerExtractDtypeKwargs(r);
  registerRemoveNop(r);
  registerLowerCopy(r);
  registerConvertLayoutOpToReshape(r);
  registerRestoreLinear(r);
  registerConvertToRelu6(r);
  registerCastAtenWhereArgType(r);
  registerConvertRepeatToExpandCopy(r);
  registerRemoveRedundantPermutePattern1(r);
  registerRemoveRedundantAssertionNodes(r);
  registerRemoveRedundantExpand(r);
  registerRemoveRedundantSlice(r);
  registerFuseRedundantReshapeToMean(r);
  registerRemoveRedundantReshapePattern1(r);
  registerRemoveRedundantReshapePattern2(r);
  registerRemoveRedundantReshapePattern3(r);
  registerRemoveRedundantReshapePattern4(r);
  registerRemoveRedundantReshapePattern5(r);
  registerRemoveRedundantToCopy(r);
  registerMergeConsecutiveCat(r);
  registerCastMixedTypeArgs(r);
  registerSegmentIndexSelectConst(r);
  registerLegalizeCausalMaskValue(r);
  registerConvertExpandToSliceCat(r);
  registerConvertMatmulToLinear(r);
  registerLowerPow2ToMul(r);
  registerLowerSelectCopyToSlice(r);
  registerLowerIndexSelectToSlice(r);
  registerFuseLeadingUnsqueezeReshape(r);
  registerCastClampMixedTypeArgs(r);
  registerEliminateRankRoundTripRegion(r);
}

} // namespace

TICO_PLUGIN("std-passes", "0.2.0", "Apache-2.0", registerAll)
