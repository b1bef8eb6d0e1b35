// libtico-quant-ptq: the post-training quantizer `ptq` (docs/quantizers.md, "PTQ").
#include "config.h"
#include "ptq_quantizer.h"

#include "tico/plugin/plugin.h"
#include "tico/plugin/registry.h"

namespace {

void registerAll(tico::Registrar &r) {
  tico::QuantizerSpec spec;
  spec.name = "ptq";
  spec.summary = "post-training quantization: observed activation ranges, integer weights (defaults: the original's "
                 "PTQConfig, uint8 asymmetric per-tensor activations, uint8 asymmetric per-channel weights)";
  spec.options = tico::ptq::optionSpecs();
  spec.create = [](const tico::Options &options) -> std::unique_ptr<tico::Quantizer> {
    return std::make_unique<tico::ptq::PtqQuantizer>(tico::ptq::PtqConfig::fromOptions(options));
  };
  r.addQuantizer(std::move(spec));
}

} // namespace

TICO_PLUGIN("quant-ptq", "0.1.0", "Apache-2.0", registerAll)
