// The `cle` quantizer (docs/quantizers.md, "Cross-layer equalization"; Nagel et al. 2019,
// "Data-Free Quantization Through Weight Equalization and Bias Correction"). Data-free.
//
// First a batch norm that follows a layer is folded into it: the legalized graph keeps inference
// batch norm as a mul and an add of per-channel constants after the convolution (decompose-batch-
// norm), which ptq would quantize as two more operators with per-tensor constants; folded, the
// layer computes W m x + (b m + a) and the two operators are gone. Then, for each
// pair of layers A -> B (equalization_pairs.h) it divides A's output channel i (weights and bias,
// and the per-channel constants added on the way) by
//
//   s_i = sqrt(r1_i / r2_i),  r1_i = max |A's weights of output channel i|,
//                             r2_i = max |B's weights of input channel i|,
//
// and multiplies B's input channel i by s_i, so both end with the range sqrt(r1_i r2_i) and grids
// shared by channels (per-tensor weights, the activation between the layers) lose less. A layer in
// two pairs (a depthwise convolution between two pointwise ones) is balanced by repeating the pass
// until no scale moves by more than 0.1 %. The graph stays float; run it before `ptq` / `gptq` /
// `adaround`. The function is unchanged up to round-off, unless `relu6: relu` makes a relu6 on a
// path a relu (on EfficientNet-Lite0 that alone costs most of the model: docs/quantizers.md).
#pragma once

#include "equalization_pairs.h"

#include <tico/pass/options.h>
#include <tico/quant/quantizer.h>

#include <string>
#include <vector>

namespace tico::cle {

struct Settings {
  bool fold = true;              // per-channel mul/add right after a layer (batch norm) folded into it first
  bool equalize = true;          // then the pairs balanced
  bool relu6_as_relu = false;    // relu6: skip | relu
  int max_iterations = 100;      // passes over all pairs (one suffices for pairs sharing no layer)
  double max_scale = 1e4;        // s is clamped to [1 / max_scale, max_scale]
  std::vector<std::string> exclude; // layer node-name globs: a pair holding one is left alone

  static std::vector<OptionSpec> specs();
  static Settings from(const Options &options);
};

class CrossLayerEqualization final : public Quantizer {
public:
  explicit CrossLayerEqualization(Settings settings) : settings_(std::move(settings)) {}

  void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &context) override;
  bool convert(Graph &graph, QuantizeContext &context) override;

private:
  Settings settings_;
};

} // namespace tico::cle
