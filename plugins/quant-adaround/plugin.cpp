// The AdaRound quantizer plugin (docs/quantizers.md, "AdaRound").
#include "adaround_quantizer.h"

#include <tico/plugin/plugin.h>

namespace {

void registerPlugin(tico::Registrar &registrar) {
  registrar.addQuantizer({"adaround",
                          "AdaRound weight quantization of linear and conv2d layers: per-weight rounding "
                          "direction learned on calibration data, kept only where it beats round-to-nearest on "
                          "held-out batches",
                          tico::adaround_plugin::AdaRoundSettings::specs(), [](const tico::Options &options) {
                            return std::make_unique<tico::adaround_plugin::AdaRoundQuantizer>(
                                tico::adaround_plugin::AdaRoundSettings::from(options));
                          }});
}

} // namespace

TICO_PLUGIN("quant-adaround", "0.1.0", "Apache-2.0", registerPlugin)
