// The `gptq` quantizer (docs/quantizers.md, "GPTQ"): Hessians of each layer's inputs from
// calibration data, then the solver layer by layer in graph order. With inputs_from
// "quantized" (the default, as the original) each quantized layer's weights replace the float
// ones for the rest of calibration, so later layers see quantized upstream activations.
// convert() writes integer weights behind a dequantize; activations are left to a following
// quantizer (ptq).
#pragma once

#include "gptq_solver.h"
#include "layers.h"

#include <tico/pass/options.h>
#include <tico/quant/quantizer.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico::gptq_plugin {

struct GptqSettings {
  gptq::Options solver;
  // The grid's shape here is copied into solver.grid; the lm_head is skipped unless asked, as the
  // original does.
  WeightQuantizerSettings common;

  static std::vector<OptionSpec> specs();
  static GptqSettings from(const Options &options); // throws tico::Error on bad values
};

class GptqQuantizer final : public Quantizer {
public:
  explicit GptqQuantizer(GptqSettings settings) : settings_(std::move(settings)) {}

  void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &context) override;
  void observe(const Observation &observation) override;
  std::vector<ConstantOverride> layer(const Node &node, QuantizeContext &context) override;
  bool convert(Graph &graph, QuantizeContext &context) override;

private:
  struct InputStats {
    std::unique_ptr<gptq::HessianAccumulator> hessian;
    SampleMeans means;      // with bias_correction
    int pending_layers = 0; // layers still to quantize from it; the Hessian goes with the last
    const LayerShape *shape = nullptr;
  };

  GptqSettings settings_;
  std::vector<QuantizedLayer> layers_;        // graph order
  std::map<std::string, std::size_t> by_node_;
  // One Hessian per (input value, geometry): q/k/v projections reading one value share it.
  std::map<std::pair<const Value *, std::string>, InputStats> inputs_;
  std::map<const Value *, std::vector<std::string>> keys_of_value_;
};

} // namespace tico::gptq_plugin
