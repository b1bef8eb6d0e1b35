// The `rotate` quantizer (docs/quantizers.md, "Rotations"; SpinQuant, Liu et al. 2024; QuaRot,
// Ashkboos et al. 2024): orthogonal rotations fused into weights before weight quantization, so a
// few large weights (and activations) are spread over many channels and every grid gets narrower.
// The float function is unchanged up to round-off.
//
// - Per-head value/output rotations (R2): head_rotations.h finds every linear whose output reaches
//   only linears through head-preserving operators; its rows are rotated per head and the readers'
//   columns counter-rotated. Offline: no operator is added.
// - Online Hadamard (R4) before the linears named by `online` (e.g. down_proj): x' = x R as two
//   small matmuls of a Kronecker-factored Hadamard matrix (n = a * b, cost n (a + b) per row),
//   W' = W R. This makes the input's outliers flat too, at the price of the added operators.
//
// The residual-stream rotation R1 is not done: it needs every writer and reader of the residual
// stream to commute with a rotation, which Gemma 3's norms on the block outputs and tied embeddings
// break (docs/quantizers.md says which models it would fit).
#pragma once

#include <tico/pass/options.h>
#include <tico/quant/quantizer.h>

#include <string>
#include <vector>

namespace tico::rotate {

struct Settings {
  bool head_rotation = true;          // R2
  std::vector<std::string> online;    // linear node-name globs: online Hadamard before them (R4)
  std::string rotation = "hadamard";  // R2's matrix: hadamard (random where no Hadamard exists) or random
  uint64_t seed = 0;                  // random rotations
  std::vector<std::string> exclude;   // linear node-name globs left alone

  static std::vector<OptionSpec> specs();
  static Settings from(const Options &options);
};

class Rotate final : public Quantizer {
public:
  explicit Rotate(Settings settings) : settings_(std::move(settings)) {}

  // Data-free: the plan stays empty, no calibration run.
  void prepare(const Graph &, CalibrationPlan &, QuantizeContext &) override {}
  bool convert(Graph &graph, QuantizeContext &context) override;

private:
  Settings settings_;
};

} // namespace tico::rotate
