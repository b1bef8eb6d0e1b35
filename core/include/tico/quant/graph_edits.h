// What a quantizer's convert() writes, in the form the conversion bundle reads
// (docs/quantization.md): quantize/dequantize pairs of the quantized_decomposed namespace on
// activations, and integer weights behind a dequantize. Quantizers share these so every one
// of them (in-tree or a researcher's plugin) hands the bundle the same shapes.
#pragma once

#include "tico/ir/graph.h"
#include "tico/ir/quant_params.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tico::quant {

// An integer grid and its parameters: real = scale * (q - zero_point), q in [quant_min,
// quant_max] stored as `storage` (UInt8 for 4-bit and 8-bit unsigned grids, Int8 for signed
// 4/8-bit ones, Int16). Per tensor (params.axis empty) or per channel along params.axis.
struct Encoding {
  DType storage = DType::UInt8;
  int64_t quant_min = 0;
  int64_t quant_max = 255;
  QuantParams params;
};

// The grid of a storage type of `bits` bits: unsigned [0, 2^bits - 1], signed
// [-2^(bits-1), 2^(bits-1) - 1]; bits 4, 8 or 16 (16 only signed). Throws tico::Error otherwise.
Encoding gridOf(int bits, bool is_signed);

// Inserts quantize_per_tensor -> dequantize_per_tensor right after `value` (a float activation)
// and makes every reader of `value` (and the graph outputs) read the dequantized result
// instead. Per-tensor encodings only. Returns the dequantize's output.
Value *quantizeActivation(Graph &graph, Value &value, const Encoding &encoding);

// Makes argument `arg` of `node` (a float constant: the weight) read `codes` (an integer
// tensor of the same shape, `encoding.storage`) through dequantize_per_tensor or
// dequantize_per_channel. Per-block parameters (a 2-D weight, blocks of columns: axis 1, one
// scale and zero point per row and block, row-major) become a dequantize with scale 1 followed
// by reshape, sub and mul per block, since Circle tensors carry per-tensor or per-channel
// parameters only. Other readers of the float constant keep it. Returns the float weight the
// node now reads.
Value *dequantizedWeight(Graph &graph, Node &node, std::string_view arg, std::shared_ptr<const TensorData> codes,
                         const Encoding &encoding);

// True when `value` is already quantized: a dequantize's output, or read by a quantize.
bool isQuantized(const Value &value);

// Bias correction: `node` (a linear or convolution) reads its bias minus `shift` (one value per
// output channel) as a new float32 constant "<bias>_corrected", or -shift when it had no bias.
// Returns the empty string, or why nothing was changed (no "bias" argument; a bias that is not a
// float32 constant of shift.size() values).
std::string subtractFromBias(Graph &graph, Node &node, const std::vector<double> &shift);

// The names a quantizer's node-name globs are matched against (ptq's overrides, rotate's
// `online`): the node's name, its outputs' names, the names of the constants it reads, their
// parameter targets (`lm_head.weight`) and the module path before the last dot (`lm_head`).
// Built once per graph (the parameter targets), then asked per node.
class SelectorNames {
public:
  explicit SelectorNames(const Graph &graph);
  std::vector<std::string> of(const Node &node) const;

private:
  std::unordered_map<const Value *, std::string> targets_;
};

} // namespace tico::quant
