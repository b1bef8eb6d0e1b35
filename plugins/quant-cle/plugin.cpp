// The cross-layer equalization plugin (docs/quantizers.md, "Cross-layer equalization").
#include "cle.h"

#include <tico/plugin/plugin.h>

namespace {

void registerPlugin(tico::Registrar &registrar) {
  registrar.addQuantizer({"cle",
                          "cross-layer equalization (data-free): per-channel scales balance the weight ranges of "
                          "adjacent linear / conv / depthwise layers after folding batch norm into them, the float "
                          "function unchanged; run before ptq, gptq or adaround",
                          tico::cle::Settings::specs(), [](const tico::Options &options) {
                            return std::make_unique<tico::cle::CrossLayerEqualization>(tico::cle::Settings::from(options));
                          }});
}

} // namespace

TICO_PLUGIN("quant-cle", "0.1.0", "Apache-2.0", registerPlugin)
