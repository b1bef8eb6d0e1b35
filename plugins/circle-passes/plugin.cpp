// libtico-circle-passes: Circle-to-Circle rewrites run by `kind: circle` pipeline stages and by
// `tico-circle optimize` (the O1 preset is configs/pipelines/circle-o1.yaml).
#include "passes.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  using namespace tico::circle_passes;
  registerCanonicalizeEquivalentOps(r);
  registerCse(r);
  registerEliminateIdentityOps(r);
  registerEliminateTransposeBoundedLayoutRegion(r);
  registerFoldConstants(r);
  registerFuseCompositeOps(r);
  registerFuseLegacyFcGeluFc(r);
  registerFuseLinearOps(r);
  registerFuseTransposeConvSlice(r);
  registerLegalizeDynamicFullyConnected(r);
  registerResolveLegacyCustomOps(r);
  registerSimplifyArithmetic(r);
  registerSimplifyReductionOps(r);
  registerSimplifyViewOps(r);
  registerDce(r);
  registerCompact(r);
  registerFuseActivationFunction(r);
  registerDeduplicateConstants(r);
  registerIsolateActivatedOutputs(r);
  registerIsolateReadOutputs(r);
  registerOnertOpForms(r);
  registerOnertTypeCarriers(r);
  registerStoreFloat16Weights(r);
}

} // namespace

TICO_PLUGIN("circle-passes", "0.1.0", "Apache-2.0", registerAll)
