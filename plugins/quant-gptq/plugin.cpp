// The GPTQ quantizer plugin (docs/quantizers.md, "GPTQ").
#include "gptq_quantizer.h"

#include <tico/plugin/plugin.h>

namespace {

void registerPlugin(tico::Registrar &registrar) {
  registrar.addQuantizer({"gptq",
                          "GPTQ weight quantization of linear and conv2d layers from calibration data (Hessian "
                          "error feedback; integer weights behind a dequantize)",
                          tico::gptq_plugin::GptqSettings::specs(), [](const tico::Options &options) {
                            return std::make_unique<tico::gptq_plugin::GptqQuantizer>(
                                tico::gptq_plugin::GptqSettings::from(options));
                          }});
}

} // namespace

TICO_PLUGIN("quant-gptq", "0.1.0", "Apache-2.0", registerPlugin)
