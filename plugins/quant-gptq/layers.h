// The layers GPTQ quantizes, seen the solver's way: a weight matrix W (one row per output
// channel) and input samples whose features line up with W's columns.
//
//   aten::linear.default     weight [O, I]                      samples: input rows [*, I]
//   aten::conv2d.default     NCHW input, OIHW weight [O,C/g,kh,kw]  samples: unfolded patches
//   circle::conv2d.default   NHWC input, OHWI weight [O,kh,kw,C]    (the legalized conv; groups 1)
//
// W of a conv is its weight flattened in the solver's patch order (c, i, j); an OHWI weight is
// reordered into it and its codes back, so the integer weight keeps the layer's own layout.
#pragma once

#include "gptq_solver.h"

#include <tico/ir/graph.h>
#include <tico/pass/options.h>
#include <tico/quant/quantizer.h>

#include <optional>
#include <string>

namespace tico::gptq_plugin {

struct LayerShape {
  enum class Kind { Linear, ConvNchw, ConvNhwc } kind = Kind::Linear;
  Eigen::Index rows = 0, columns = 0;
  gptq::Conv2dGeometry conv; // conv kinds
  std::vector<int64_t> weight_sizes;
};

// A float32 tensor's values, contiguous (weights, observed activations).
std::vector<float> floatsOf(const TensorData &tensor);

// The layer `node` is, or nullopt with `why` set when GPTQ cannot take it (not a float constant
// weight, a padding mode instead of numbers, ...).
std::optional<LayerShape> layerOf(const Node &node, std::string &why);

// The weight as the solver's W.
Eigen::MatrixXf weightMatrix(const TensorData &weight, const LayerShape &shape);
// A solver-order matrix (codes or dequantized values) back in the weight's own layout, row-major.
template <typename T> std::vector<T> toWeightLayout(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> &m,
                                                    const LayerShape &shape);

// Bias correction's statistics: the sum of the samples the solver sees (input rows, or unfolded
// patches: zero padding included) and their count, so (W_q - W) sums / rows is the layer's mean
// output change from quantizing W (both in solver order).
struct SampleMeans {
  Eigen::VectorXd sums;
  double rows = 0.0;
};

// Adds one observed input batch (the layer's input value for one calibration batch), and its
// samples' sums to `means` when given.
void accumulate(gptq::HessianAccumulator &hessian, const TensorData &input, const LayerShape &shape,
                SampleMeans *means = nullptr);

// Layers reading one value with this key see the same samples and share one Hessian (q/k/v
// projections of one input; convolutions of one input with equal geometry).
std::string geometryKey(const LayerShape &shape);

// Whether `name` matches one of the shell globs `patterns` (fnmatch).
bool globMatch(const std::vector<std::string> &patterns, const std::string &name);

// Which layers a weight quantizer (gptq, adaround) takes: every layer layerOf accepts, filtered by
// node-name globs; the linear producing a graph output (an LLM's head) only when asked.
struct LayerSelection {
  std::string quantizer;              // names the quantizer in errors
  std::vector<std::string> include;   // empty: every layer
  std::vector<std::string> exclude;
  bool quantize_lm_head = false;
};
// A layer a weight quantizer takes, from prepare() to convert(). What is kept after layer() is one
// byte per weight in the weight's own layout and the grids, nothing of the solver's full-size
// matrices (a 1 B-parameter model would hold 8 GB of int32 codes and float weights otherwise).
struct QuantizedLayer {
  std::string node;
  LayerShape shape;
  const Value *input = nullptr;
  std::vector<std::byte> codes;
  gptq::CircleQuant circle;
  bool done = false; // layer() has filled codes and circle
  std::vector<double> bias_shift; // bias correction: subtracted from the bias by writeQuantizedLayers
};

// With bias correction: sets layer.bias_shift = (Wq - W) mean from the solver-order float and
// quantized weights; returns the largest |shift| (0 and nothing set without samples, or for a
// grouped convolution, whose groups share one set of patch statistics).
double setBiasShift(QuantizedLayer &layer, const Eigen::MatrixXf &W, const Eigen::MatrixXf &Wq, const SampleMeans &means);


// The options every layer-wise weight quantizer (gptq, adaround) takes: the weight grid's shape,
// what later layers calibrate on, and which layers.
struct WeightQuantizerSettings {
  int bits = 4;
  bool symmetric = false;
  bool signed_storage = false;        // symmetric grids as int<bits> with zero point 0
  bool per_channel = true;
  bool inputs_from_quantized = true;  // "quantized" | "float"
  bool bias_correction = false;       // setBiasShift
  LayerSelection selection;
};
// bits, symmetric, signed, per_channel, inputs_from, quantize_lm_head, include, exclude, bias_correction.
std::vector<OptionSpec> weightQuantizerSpecs();
// Throws tico::Error naming `quantizer` for values out of range.
WeightQuantizerSettings weightQuantizerSettings(const Options &options, const std::string &quantizer);

// The selected layers in graph order, each asked of the host: its input observed and layer()
// called for it. Throws tico::Error listing include globs that match no layer.
std::vector<QuantizedLayer> planLayers(const Graph &graph, const LayerSelection &selection, CalibrationPlan &plan);

// The codes in the weight's own layout, one byte each (int8 storage in two's complement).
std::vector<std::byte> codeBytes(const gptq::CodeMatrix &codes, const gptq::CircleQuant &circle,
                                 const LayerShape &shape);
// What layer() returns with inputs_from "quantized": the node's weight replaced by `values`
// (solver order) for the rest of calibration.
ConstantOverride weightOverride(const Node &node, const Eigen::MatrixXf &values, const LayerShape &shape);
// convert(): every done layer's float weight replaced by its codes behind a dequantize with its
// grids (per output channel, or per channel and group of input columns), and its bias_shift
// subtracted from its bias (a bias created when it had none). Returns whether any was; throws
// tico::Error naming `quantizer` when a layer's node is gone.
bool writeQuantizedLayers(Graph &graph, std::vector<QuantizedLayer> &layers, const std::string &quantizer);

} // namespace tico::gptq_plugin
