// The post-training quantizer `ptq` (docs/quantizers.md, "PTQ"): observes the activations
// placement.h chooses while calibration data flows, then writes quantize/dequantize pairs on
// them and integer weights behind dequantize nodes, in the form the conversion bundle reads.
#pragma once

#include "bias_correction.h"
#include "config.h"
#include "placement.h"
#include "range_estimator.h"

#include "tico/quant/quantizer.h"

#include <map>
#include <span>
#include <memory>
#include <string>
#include <vector>

namespace tico::ptq {

class PtqQuantizer final : public Quantizer {
public:
  explicit PtqQuantizer(PtqConfig config) : config_(std::move(config)) {}

  void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &context) override;
  void observe(const Observation &observation) override;
  bool convert(Graph &graph, QuantizeContext &context) override;

  // The activations prepare() chose, by value name (tests and logs).
  std::vector<std::string> observedNames() const;

private:
  struct Activation {
    std::string name;
    Grid grid;
    std::string estimator;
    std::unique_ptr<RangeEstimator> ranges;
    std::size_t batches = 0;
  };
  struct Weight {
    std::string node;
    std::string arg;
    int64_t channel_axis = 0;
    NodeConfig config;
  };

  EstimatorSettings settingsFor(const Grid &grid, bool per_tensor) const;
  bool quantizeWeight(Graph &graph, const Weight &w, QuantizeContext &context);

  PtqConfig config_;
  std::map<const Value *, Activation> activations_;
  std::vector<const Value *> order_; // activations in graph order
  std::vector<std::pair<std::string, std::string>> returned_views_; // (view, root) names
  std::vector<Weight> weights_;
  std::map<std::string, Value *> tied_; // during convert: quantized weights by constant and configuration
  // Bias correction: the input patch means of each corrected layer (by node name), and which
  // layers each observed input feeds.
  std::map<std::string, PatchMeans> patch_means_;
  std::map<const Value *, std::vector<std::string>> patch_inputs_;
  // b <- b - (W_q - W) E[x] for `node`, its largest |shift| reported.
  void correctBias(Graph &graph, Node &node, std::span<const float> values, const std::vector<AffineParams> &params,
                   int64_t inner, const Grid &grid, QuantizeContext &context);
};

} // namespace tico::ptq
