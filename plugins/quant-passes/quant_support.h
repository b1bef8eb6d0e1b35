// Shared helpers of the conversion-time quantization passes (fold-quant-ops,
// remove-weight-dequant, propagate-qparam-forward/backward, quantize-bias,
// check-missing-qparams): reading the qparams of quantize/dequantize nodes, the op sets the
// bundle quantizes, and error messages naming node and tensor.
#pragma once

#include "tico/ir/graph.h"
#include "tico/ir/node.h"
#include "tico/ir/quant_params.h"
#include "tico/rewrite/pattern.h"
#include "tico/support/error.h"

#include <optional>
#include <string>
#include <vector>

namespace tico::quant_passes {

// The quantization a quantize/dequantize node applies: storage dtype, range, parameters.
struct QNodeParams {
  DType dtype = DType::Unknown; // the storage dtype the node names (u8 for the uint4 range)
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  QuantParams params;
  // The dtype a value quantized this way gets in the IR: the `dtype` argument, or u4/i4 for
  // the 4-bit ranges (0, 15) / (-8, 7) held in an 8-bit type.
  DType storage() const;
};

bool isQuantizeNode(const Node &node);   // quantize_per_tensor/per_channel (any overload)
bool isDequantizeNode(const Node &node); // dequantize_per_tensor/per_channel (any overload)

// The parameters of a .default quantize/dequantize node whose qparams the conversion knows
// (numbers, or constant tensors for the per-channel forms); nullopt for run-time qparams
// (the .tensor overloads). Bad values (a scale that is not a positive finite number, a zero
// point outside the range, a per-channel axis outside the rank or a channel count that is not
// the dimension's size) are errors naming the node, the tensor and the pass.
std::optional<QNodeParams> knownQNodeParams(const Node &node, const std::string &pass);

// Ops whose results are their input's values moved around: quantized values keep their
// parameters through them (the Circle data-movement kernels require equal parameters).
bool isDataMovement(const Node &node);
// Their op keys, for passes rooted on every one of them.
std::vector<OpKey> dataMovementRoots();
// Ops with quantized Circle kernels that read a weight: linear -> FULLY_CONNECTED,
// circle::conv2d / depthwise_conv2d / transpose_conv -> CONV_2D / DEPTHWISE_CONV_2D /
// TRANSPOSE_CONV.
bool isQuantizedCompute(const Node &node);
// Their op keys, for passes rooted on every one of them.
std::vector<OpKey> quantizedComputeRoots();
// max/avg pooling (aten NCHW and circle NHWC forms): MAX_POOL_2D / AVERAGE_POOL_2D, whose
// quantized kernels need equal input and output parameters.
bool isQuantizedPool(const Node &node);
std::vector<OpKey> quantizedPoolRoots();
// Data movement and pools: the result has the input's parameters (a quantize with other
// parameters after them stays, as a requantize).
bool keepsInputParams(const Node &node);

// The values a node reads quantized when the bundle quantizes it (its data inputs), or
// nullopt when the bundle has no quantized form for the node:
//   data movement, relu, pools, sigmoid, tanh, neg, softmax over the last dim, mean.dim -> input
//   linear / circle conv (input, weight), add/sub.Tensor (alpha 1), mul.Tensor, mm, bmm -> both
//   circle::rms_norm -> x, and gamma when it is not a float constant (per channel allowed)
//   cat -> every listed tensor
// Each has an integer kernel in the built-in runtime (docs/quantization.md, "Quantized kernels").
std::optional<std::vector<Value *>> quantizedDataInputs(const Node &node);
// Whether quantized `node` reads float constant `v` as such (the float gamma of RMS_NORM).
bool takesFloatConstant(const Node &node, const Value *v);

// The regions the bundle quantizes. A value is a quantized *source* when it is quantized, the
// result of a dequantize with known parameters, or the result of an op the bundle quantizes
// whose data inputs are sources (looking backwards). It is a quantized *sink* when it is
// quantized, or when every reader takes it quantized: a quantize node, or an op the bundle
// quantizes whose result is a sink (looking forwards); a graph output never is. An op is
// quantizable when it has a quantized form (quantizedDataInputs), its data inputs are sources
// (per tensor, except the weight of a linear / convolution) and its result is a sink. Only
// quantizable ops are given quantized operands; everything else keeps reading dequantized
// values in float.
bool quantizedSource(const Value *v);
bool quantizedSink(const Graph &graph, const Value *v);
bool quantizableInputs(const Node &node);
bool quantizableNode(const Graph &graph, const Node &node);

// The per-tensor parameters a source value has or will have when they are known already: its
// own, a dequantize's, or through data movement / pools. nullopt otherwise (e.g. the result
// of a compute op whose quantize is not folded yet).
std::optional<QuantParams> sourceParams(const Value *v);

// Index of the argument named `name`, or nullopt.
std::optional<std::size_t> argIndex(const Node &node, std::string_view name);

// Makes every argument slot of `user` that reads `from` read `to` instead (through the
// rewriter, value lists included). Returns whether it changed anything.
bool replaceUsesIn(rewrite::Rewriter &rewriter, Node &user, Value *from, Value *to);

// Every element of a constant as a double (float, integer and bool dtypes); nullopt otherwise.
std::optional<std::vector<double>> constantElements(const TensorData &data);

// "scale=[0.5] zp=[3]" and friends, for messages.
std::string describe(const QuantParams &q, DType dtype);
std::string number(double v);

// A tico::Error "<pass>: node 'n' (op): message".
Error nodeError(const std::string &pass, const Node &node, const std::string &message);

} // namespace tico::quant_passes
