// The layer pairs cross-layer equalization rescales (cle.h): a layer A whose output channels reach
// the input channels of a layer B through operators that commute with a positive per-channel
// scale, so dividing A's output channel i by s_i and multiplying B's input channel i by s_i keeps
// the function:
//
//   A --> [permute | zero pad | mul by a constant | add/sub of a constant | relu | relu6]* --> B
//
// A and B are linear, conv2d or depthwise conv2d layers with float32 constant weights (ATen's NCHW
// conv2d, and the legalized circle:: NHWC forms the quantize stage sees). An add or sub of a
// constant needs that constant divided by s too, so it must vary along the channel axis only (or
// be a scalar). relu6 does not commute (clip(x / s, 0, 6) is not clip(x, 0, 6) / s): with
// `relu6_as_relu` the path goes through it and it becomes a relu (the data-free quantization
// paper's treatment of MobileNetV2), otherwise the pair stops there. Every value on the path is
// read once, by the next operator, and is not a graph output.
#pragma once

#include <tico/ir/graph.h>

#include <string>
#include <vector>

namespace tico::cle {

// How a layer's weight holds its channels.
struct LayerForm {
  enum class Kind { Linear, ConvNchw, ConvNhwc, DepthwiseNchw, DepthwiseNhwc } kind = Kind::Linear;
  int64_t output_axis = 0;     // the weight axis of output channels
  int64_t input_axis = 1;      // the weight axis of input channels (depthwise: the same channel axis)
  int64_t activation_axis = 0; // the channel axis of the layer's input and output activations
  int64_t out_channels = 0;
  int64_t in_channels = 0;
};

struct PathStep {
  enum class Kind { Permute, Pad, Mul, AddConstant, Relu, Relu6 } kind = Kind::Permute;
  const Node *node = nullptr;
  std::string constant_arg; // Mul / AddConstant: the argument holding the constant or number
  bool channel_only = false; // Mul: a number or a constant varying along the channel axis at most
  bool subtract = false;     // AddConstant: an aten::sub
  int64_t channel_axis = 0; // the channel axis of the step's input activation
  int64_t rank = 0;         // that activation's rank
};

struct EqualizationPair {
  const Node *first = nullptr;  // its output channels are divided by s
  const Node *second = nullptr; // its input channels are multiplied by s
  LayerForm first_form, second_form;
  std::vector<PathStep> path;
  int64_t channels = 0;
};

// Where a layer's output goes: the operators it passes through and the layer reading it at the
// end, or `stop` saying why there is none.
struct Walk {
  std::vector<PathStep> path;
  const Node *second = nullptr;
  LayerForm second_form;
  std::string stop;
};
Walk walkFrom(const Graph &graph, const Node &first, const LayerForm &form, bool relu6_as_relu);

// The layer `node` is (linear, conv2d or depthwise conv2d with a float32 constant weight and a
// constant or absent bias), or false.
bool layerForm(const Node &node, LayerForm &form);

// Every pair in graph order. `stopped` gets one line per layer whose output could not be followed
// to another layer, with the reason (logged at debug level by the quantizer).
std::vector<EqualizationPair> findEqualizationPairs(const Graph &graph, bool relu6_as_relu,
                                                    std::vector<std::string> &stopped);

} // namespace tico::cle
