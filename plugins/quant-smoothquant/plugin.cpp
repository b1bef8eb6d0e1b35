// The SmoothQuant plugin (docs/quantizers.md, "SmoothQuant").
#include "smoothquant.h"

#include <tico/plugin/plugin.h>

namespace {

void registerPlugin(tico::Registrar &registrar) {
  registrar.addQuantizer({"smoothquant",
                          "SmoothQuant: per-channel activation scales folded into the preceding norm or scale and "
                          "the weights of the linears reading it (the float function is unchanged), alpha per "
                          "group searched on calibration data; run before ptq",
                          tico::smoothquant::Settings::specs(), [](const tico::Options &options) {
                            return std::make_unique<tico::smoothquant::SmoothQuant>(
                                tico::smoothquant::Settings::from(options));
                          }});
}

} // namespace

TICO_PLUGIN("quant-smoothquant", "0.1.0", "Apache-2.0", registerPlugin)
