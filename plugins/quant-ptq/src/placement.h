// Where ptq puts quantization (docs/quantizers.md, "PTQ", Placement): which ops compute on
// quantized tensors, which activations get an observer and a quantize/dequantize pair, which
// weights become integer constants.
//
// * Quantized ops are those the conversion bundle (plugin quant-passes) has an integer form for:
//   linear and the circle convolutions, transposed convolution included (with their constant
//   weight), add/sub/mul of two activations, cat, softmax over the last dim, mean.dim, sigmoid,
//   tanh, relu, neg, mm, bmm, and circle::rms_norm with a float (or no) gamma.
// * Data movement the bundle passes parameters through (permute, view, reshape, squeeze,
//   unsqueeze, clone, flatten, transpose, slice) and unpadded max/avg pools get no observer: the
//   activation is quantized where it is computed (its *root*), and the bundle hands the
//   parameters on.
// * An activation is quantized once, after its root, and every reader reads the dequantized
//   value. With float_islands=avoid (default) it is quantized only when every reader (through
//   data movement) is a quantized op or the model output, and an op is quantized only when all
//   its activations are: ops without an integer kernel (rsqrt, pow, exp, div, gelu, ...) and
//   everything they touch directly stay float, so the strict check-missing-qparams never sees a
//   float op between quantized tensors. float_islands=keep quantizes every candidate; float ops
//   then read dequantized values (check-missing-qparams{strict=false} keeps them in float).
// * Weights (linear, circle convolutions, embedding) are quantized wherever their node is not
//   skipped, also when the op itself stays float (weight-only: a DEQUANTIZE feeds it).
// * What is already quantized (a dequantize's result, a value a quantize reads, a weight behind
//   a dequantize as GPTQ writes it) is left alone.
#pragma once

#include "config.h"

#include "tico/ir/graph.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tico::ptq {

struct WeightSite {
  const Node *node = nullptr;
  std::string arg;          // "weight"
  int64_t channel_axis = 0; // the output channels (axis of per-channel parameters)
};

struct Placement {
  std::vector<const Node *> quantized_ops;    // graph order
  std::vector<const Value *> activations;     // roots to observe and quantize, graph order
  std::map<const Value *, const Node *> owner; // whose configuration (dtype, estimator) a root takes
  // Data-movement results the model returns whose root is quantized: they get a quantize /
  // dequantize pair with the root's parameters, so the model output stays float.
  std::vector<std::pair<const Value *, const Value *>> returned_views; // (view, root)
  std::vector<WeightSite> weights;
  std::vector<const Node *> kept_float; // candidates left float because of a float neighbour
};

// The data inputs of a candidate op that are activations (not its weight), or nullopt when
// the bundle has no quantized form for it.
std::optional<std::vector<const Value *>> activationInputs(const Node &node);
// The weight a node reads and its output-channel axis, or nullopt.
std::optional<WeightSite> weightOf(const Node &node);
// Data movement and pools whose result keeps its input's parameters.
bool passesParameters(const Node &node);
// True when `value` already carries quantization (a dequantize's output, or read by a quantize).
bool alreadyQuantized(const Value &value);

Placement place(const Graph &graph, const NodeConfigs &configs, const PtqConfig &config);

} // namespace tico::ptq
