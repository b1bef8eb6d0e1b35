// The `smoothquant` quantizer (docs/quantizers.md, "SmoothQuant"; Xiao et al. 2022): for each
// smoothing group (smoothing_groups.h) a per-channel scale s_j = max|X_j|^alpha / max|W_:j|^(1-alpha)
// moves the activation's outliers into the weights: X' = X / s in the producer's constant,
// W' = W diag(s) in every linear reading X. The graph stays float (the function is unchanged up to
// round-off); a following `ptq` quantizes it.
//
// alpha per group: fixed, or searched on the calibration data's statistics (per-channel ranges and
// the Hessian H = sum x x^T of X) by the quantization error it predicts for the group's linears,
//   tr(dW' H' dW'^T)          weight error of W' on its per-channel grid, H' = diag(1/s) H diag(1/s)
// + samples * step^2 / 12 * |W'|_F^2
//                             the per-tensor activation grid's rounding noise through W'
// with step = range(X / s) / (2^activation_bits - 1); s = 1 (no smoothing) is always a candidate.
#pragma once

#include "gptq_solver.h"
#include "smoothing_groups.h"

#include <tico/pass/options.h>
#include <tico/quant/quantizer.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico::smoothquant {

struct Settings {
  double alpha = 0.5;       // used when alpha_search is off
  bool alpha_search = true; // alpha in {0, step, ..., 1} and no smoothing, the least predicted error
  double alpha_step = 0.05;
  int activation_bits = 8;  // the grids the search predicts the error of
  int weight_bits = 8;
  std::vector<std::string> exclude; // linear node-name globs: a group with one of them is left alone

  static std::vector<OptionSpec> specs();
  static Settings from(const Options &options);
};

class SmoothQuant final : public Quantizer {
public:
  explicit SmoothQuant(Settings settings) : settings_(std::move(settings)) {}

  void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &context) override;
  void observe(const Observation &observation) override;
  bool convert(Graph &graph, QuantizeContext &context) override;

private:
  struct Stats {
    SmoothingGroup group;
    std::vector<float> min, max; // per channel over every batch and token
    std::unique_ptr<gptq::HessianAccumulator> hessian;
  };
  Settings settings_;
  std::vector<Stats> stats_;
  std::map<const Value *, std::size_t> by_value_;
};

} // namespace tico::smoothquant
