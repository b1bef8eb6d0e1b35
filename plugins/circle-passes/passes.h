// Registration entry points of the Circle passes, one per pass file.
#pragma once

#include "tico/plugin/registry.h"

namespace tico::circle_passes {

// The original converter's sixteen passes, under its names.
void registerCanonicalizeEquivalentOps(Registrar &r);
void registerCse(Registrar &r);
void registerEliminateIdentityOps(Registrar &r);
void registerEliminateTransposeBoundedLayoutRegion(Registrar &r);
void registerFoldConstants(Registrar &r);
void registerFuseCompositeOps(Registrar &r);
void registerFuseLegacyFcGeluFc(Registrar &r);
void registerFuseLinearOps(Registrar &r);
void registerFuseTransposeConvSlice(Registrar &r);
void registerLegalizeDynamicFullyConnected(Registrar &r);
void registerResolveLegacyCustomOps(Registrar &r);
void registerSimplifyArithmetic(Registrar &r);
void registerSimplifyReductionOps(Registrar &r);
void registerSimplifyViewOps(Registrar &r);
void registerDce(Registrar &r);
void registerCompact(Registrar &r);

// Parts of the above that are also useful on their own.
void registerFuseActivationFunction(Registrar &r);
void registerDeduplicateConstants(Registrar &r);

// Portability of converted models to runtimes with known quirks.
void registerIsolateActivatedOutputs(Registrar &r);
void registerIsolateReadOutputs(Registrar &r);
void registerOnertOpForms(Registrar &r);
void registerOnertTypeCarriers(Registrar &r);
// The dtype policy's optional float16 weight storage (docs/circle-passes.md).
void registerStoreFloat16Weights(Registrar &r);

} // namespace tico::circle_passes
