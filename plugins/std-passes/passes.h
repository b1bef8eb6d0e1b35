// One registration function per pass; plugin.cpp calls them all.
#pragma once

#include "tico/plugin/registry.h"

namespace tico::passes {

// Clean-ups that are not passes of the original converter.
void registerRemoveDeadCode(Registrar &registrar);
void registerFoldConstantViews(Registrar &registrar);
void registerFunctionalize(Registrar &registrar);
void registerStateWrites(Registrar &registrar);
// The dtype policy for bfloat16 / float16 programs (docs/passes.md).
void registerHalfPrecisionPolicy(Registrar &registrar);

// The passes of the original converter's main bundle, in its order (docs/passes.md).
void registerFillMetaVal(Registrar &registrar);
void registerExtractDtypeKwargs(Registrar &registrar);
void registerRemoveNop(Registrar &registrar);
void registerLowerCopy(Registrar &registrar);
void registerConvertLayoutOpToReshape(Registrar &registrar);
void registerRestoreLinear(Registrar &registrar);
void registerConvertToRelu6(Registrar &registrar);
void registerCastAtenWhereArgType(Registrar &registrar);
void registerConvertRepeatToExpandCopy(Registrar &registrar);
void registerRemoveRedundantPermutePattern1(Registrar &registrar);
void registerRemoveRedundantAssertionNodes(Registrar &registrar);
void registerRemoveRedundantExpand(Registrar &registrar);
void registerRemoveRedundantSlice(Registrar &registrar);
void registerFuseRedundantReshapeToMean(Registrar &registrar);
void registerRemoveRedundantReshapePattern1(Registrar &registrar);
void registerRemoveRedundantReshapePattern2(Registrar &registrar);
void registerRemoveRedundantReshapePattern3(Registrar &registrar);
void registerRemoveRedundantReshapePattern4(Registrar &registrar);
void registerRemoveRedundantReshapePattern5(Registrar &registrar);
void registerRemoveRedundantToCopy(Registrar &registrar);
void registerMergeConsecutiveCat(Registrar &registrar);
void registerCastMixedTypeArgs(Registrar &registrar);
void registerSegmentIndexSelectConst(Registrar &registrar);
void registerLegalizeCausalMaskValue(Registrar &registrar);
void registerConvertExpandToSliceCat(Registrar &registrar);
void registerConvertMatmulToLinear(Registrar &registrar);
void registerLowerPow2ToMul(Registrar &registrar);
void registerLowerSelectCopyToSlice(Registrar &registrar);
void registerLowerIndexSelectToSlice(Registrar &registrar);
void registerFuseLeadingUnsqueezeReshape(Registrar &registrar);
void registerCastClampMixedTypeArgs(Registrar &registrar);
void registerEliminateRankRoundTripRegion(Registrar &registrar);

} // namespace tico::passes
