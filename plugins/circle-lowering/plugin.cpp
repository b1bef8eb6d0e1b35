// libtico-circle-lowering: ATen ops -> Circle builtin operators.
#include "circle_op_schemas.h"
#include "lowerings.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  using namespace tico::lowering;
  tico::circle_ops::registerSchemas(r);
  registerElementwiseBinary(r);
  registerActivations(r);
  registerLinear(r);
  registerConvolution(r);
  registerPooling(r);
  registerReshape(r);
  registerTranspose(r);
  registerBroadcast(r);
  registerConcat(r);
  registerReductions(r);
  registerSoftmax(r);
  registerGather(r);
  registerSlice(r);
  registerCopyAndCast(r);
  registerSymbolic(r);
  registerComparison(r);
  registerUnaryMath(r);
  registerArgReductions(r);
  registerStatistics(r);
  registerScan(r);
  registerSplit(r);
  registerPadTile(r);
  registerIndexing(r);
  registerResize(r);
  registerNormalization(r);
  registerConstants(r);
  registerTransposeConv(r);
  registerTriangular(r);
  registerTopK(r);
  registerScatter(r);
  registerScatterIndexPut(r);
  registerScatterSelect(r);
  registerCircleCustom(r);
  registerQuantize(r);
  registerQuantizeMx(r);
}

} // namespace

TICO_PLUGIN("circle-lowering", "0.1.0", "Apache-2.0", registerAll)
