// Empirical bias correction (docs/quantizers.md, "Bias correction"; Nagel et al. 2019, section
// 4.2). Quantizing a layer's weight W to W_q moves the layer's mean output by (W_q - W) E[x];
// the bias absorbs it: b <- b - (W_q - W) E[x], with E[x] the mean of the layer's input patches
// over every calibration batch and output position (zero padding included), so the float layer's
// mean output over the calibration data is exactly the quantized-weight layer's. Per-channel
// grids round each channel's weights independently and leave a mean error per channel that
// nothing else removes; depthwise filters of 9 weights are where it shows most.
#pragma once

#include <tico/ir/graph.h>

#include <optional>
#include <string>
#include <vector>

namespace tico::ptq {

class PatchMeans {
public:
  // The layer `node` is (aten::linear, aten::conv2d, circle::conv2d, circle::depthwise_conv2d with
  // numeric or "same"/"valid" padding), or nullopt with `why` set.
  static std::optional<PatchMeans> forLayer(const Node &node, std::string &why);

  // One calibration batch of the layer's input (contiguous float32).
  void add(const TensorData &input);
  std::size_t positions() const { return positions_; }

  // Per output channel, sum over the weight of delta (the weight's shape and layout, row-major)
  // times the mean input it multiplies: the layer's mean output change.
  std::vector<double> outputShift(const std::vector<float> &delta) const;

private:
  enum class Kind { Linear, ConvNchw, ConvNhwc, DepthwiseNhwc } kind_ = Kind::Linear;
  std::vector<int64_t> weight_sizes_;
  int stride_h_ = 1, stride_w_ = 1, dilation_h_ = 1, dilation_w_ = 1;
  int pad_top_ = 0, pad_left_ = 0; // explicit, or -1 for "same" (computed per input size)
  bool same_ = false;
  int64_t groups_ = 1;
  std::vector<double> sums_; // Linear: [I]; NHWC: [kh, kw, C]; NCHW: [C, kh, kw]
  std::size_t positions_ = 0;
};

} // namespace tico::ptq
