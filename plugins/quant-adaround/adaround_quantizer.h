// The `adaround` quantizer (docs/quantizers.md, "AdaRound"): each selected linear / conv2d layer's
// weight is rounded up or down per element as AdaRound learns on the layer's calibration inputs
// (their Hessian, like GPTQ), on a fixed per-channel grid. Calibration batches are split: every
// `holdout_every`-th batch goes to a held-out Hessian, and a layer keeps its learned rounding
// only when its output error on those batches is below round-to-nearest's; otherwise it keeps
// round-to-nearest (rolled back, reported). Layer by layer in graph order; with inputs_from
// "quantized" later layers calibrate on the quantized weights of earlier ones.
#pragma once

#include "adaround.h"
#include "layers.h"

#include <tico/pass/options.h>
#include <tico/quant/quantizer.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico::adaround_plugin {

struct AdaRoundSettings {
  gptq_plugin::WeightQuantizerSettings common;
  gptq::GridOptions grid;            // common's shape and the range search
  gptq::AdaRoundOptions solver;
  int holdout_every = 4;             // 0: no held-out batches (judged on the training batches)

  static std::vector<OptionSpec> specs();
  static AdaRoundSettings from(const Options &options); // throws tico::Error on bad values
};

class AdaRoundQuantizer final : public Quantizer {
public:
  explicit AdaRoundQuantizer(AdaRoundSettings settings) : settings_(std::move(settings)) {}

  void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &context) override;
  void observe(const Observation &observation) override;
  std::vector<ConstantOverride> layer(const Node &node, QuantizeContext &context) override;
  bool convert(Graph &graph, QuantizeContext &context) override;

private:
  // Hessians of one input value seen with one geometry: training batches and held-out ones.
  struct InputStats {
    std::unique_ptr<gptq::HessianAccumulator> train, holdout;
    gptq_plugin::SampleMeans means; // with bias_correction, over every batch
    int pending_layers = 0;
    const gptq_plugin::LayerShape *shape = nullptr;
  };

  bool heldOut(std::size_t batch, std::size_t batch_count) const;

  AdaRoundSettings settings_;
  std::vector<gptq_plugin::QuantizedLayer> layers_; // graph order
  std::map<std::string, std::size_t> by_node_;
  std::map<std::pair<const Value *, std::string>, InputStats> inputs_;
  std::map<const Value *, std::vector<std::string>> keys_of_value_;
};

} // namespace tico::adaround_plugin
