// libtico-quant-passes: the ATen-level quantization passes (docs/quantization.md).
#include "mx_quant.h"
#include "quant_passes.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  tico::quant_passes::registerQuantTypeRules(r);
  tico::quant_passes::registerDecomposeFakeQuantize(r);
  // The conversion-time bundle (stage `quantize` of the default pipeline).
  tico::quant_passes::registerRemoveWeightDequant(r);
  tico::quant_passes::registerFoldQuantOps(r);
  tico::quant_passes::registerFoldMxQuantOps(r); // MX: mx_quant.cpp
  tico::quant_passes::registerPropagateQParamForward(r);
  tico::quant_passes::registerPropagateQParamBackward(r);
  tico::quant_passes::registerQuantizeBias(r);
  tico::quant_passes::registerRemoveUnusedPlaceholder(r);
  tico::quant_passes::registerInsertQuantizeOnDtypeMismatch(r);
  tico::quant_passes::registerCheckMissingQParams(r);
  tico::quant_passes::registerQuantizedModelIO(r);
}

} // namespace

TICO_PLUGIN("quant-passes", "0.1.0", "Apache-2.0", registerAll)
