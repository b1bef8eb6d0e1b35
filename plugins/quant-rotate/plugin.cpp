// The rotation plugin (docs/quantizers.md, "Rotations").
#include "rotate.h"

#include <tico/plugin/plugin.h>

namespace {

void registerPlugin(tico::Registrar &registrar) {
  registrar.addQuantizer({"rotate",
                          "orthogonal rotations fused into the weights before weight quantization: per-head "
                          "value/output rotations (R2) and online Hadamard rotations before chosen linears (R4); "
                          "the float function is unchanged; data-free",
                          tico::rotate::Settings::specs(), [](const tico::Options &options) {
                            return std::make_unique<tico::rotate::Rotate>(tico::rotate::Settings::from(options));
                          }});
}

} // namespace

TICO_PLUGIN("quant-rotate", "0.1.0", "Apache-2.0", registerPlugin)
