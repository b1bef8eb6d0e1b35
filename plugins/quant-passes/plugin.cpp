// libtico-quant-passes: the ATen-level quantization passes (docs/quantization.md).
#include "quant_passes.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  tico::quant_passes::registerQuantTypeRules(r);
  tico::quant_passes::registerDecomposeFakeQuantize(r);
}

} // namespace

TICO_PLUGIN("quant-passes", "0.1.0", "Apache-2.0", registerAll)
