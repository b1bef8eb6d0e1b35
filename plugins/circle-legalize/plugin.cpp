// libtico-circle-legalize: passes that rewrite the ATen graph toward Circle — circle:: ops
// for layout-sensitive operators, convolution legalization, and fusions that form Circle's
// extension operators.
#include "circle_op_schemas.h"
#include "passes.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  using namespace tico::legalize;
  // The passes create circle:: nodes and read circle_custom:: ones; their schemas must be known
  // even when the lowering plugin (which registers the same schemas) is not loaded.
  tico::circle_ops::registerSchemas(r);
  registerConvertCircleCustomOps(r);
  registerConvertGatherToGatherNd(r);
  registerConvertSymSizeToCircleShape(r);
  registerDecomposeGroupedConv2d(r);
  registerLowerToResizeNearestNeighbor(r);
  registerLegalizePreDefinedLayoutOperators(r);
  registerConvertConv1dToConv2d(r);
  registerConvertConv3dToConv2d(r);
  registerFuseRmsNorm(r);
  registerFuseRope(r);
  registerFuseInstanceNorm(r);
}

} // namespace

TICO_PLUGIN("circle-legalize", "0.1.0", "Apache-2.0", registerAll)
