// Registration functions of the quant-passes plugin, one per file.
#pragma once

#include "tico/ir/dtype.h"
#include "tico/plugin/registry.h"

#include <cstdint>
#include <optional>

namespace tico::quant_passes {

// The storage dtype a quantization range [quant_min, quant_max] stands for, as the original
// converter reads it off fake-quantize nodes (torch has no 4-bit dtypes, so 4-bit ranges are
// held in the 8-bit type of their sign): (0, 255) and (0, 15) uint8; (-128, 127), (-127, 127)
// and (-8, 7) int8; (-32768, 32767) and (-32767, 32767) int16; (0, 65535) uint16. Any other
// range: nullopt.
std::optional<DType> storageDTypeForRange(int64_t quant_min, int64_t quant_max);

// Result types of quantized_decomposed::(de)quantize_* and aten::fake_quantize_* nodes.
void registerQuantTypeRules(Registrar &r);
// decompose-fake-quantize: fake_quantize_* -> quantize + dequantize.
void registerDecomposeFakeQuantize(Registrar &r);

// The conversion-time bundle (the original's quantization bundle; docs/quantization.md).
// remove-weight-dequant: integer constant + dequantize -> quantized constant.
void registerRemoveWeightDequant(Registrar &r);
// fold-quant-ops: quantize/dequantize pairs on activations -> qparams on the tensors.
void registerFoldQuantOps(Registrar &r);
// propagate-qparam-forward / -backward: qparams through data movement (and relu).
void registerPropagateQParamForward(Registrar &r);
void registerPropagateQParamBackward(Registrar &r);
// quantize-bias: float bias of a quantized linear / convolution -> int32 / int64.
void registerQuantizeBias(Registrar &r);
// remove-unused-placeholder: constants nothing reads removed (user inputs stay).
void registerRemoveUnusedPlaceholder(Registrar &r);
// insert-quantize-on-dtype-mismatch: a requantize where a quantized op's result type differs
// from its operands' (uint8 <-> int16).
void registerInsertQuantizeOnDtypeMismatch(Registrar &r);
// check-missing-qparams: every float tensor left in the quantized region, as one error.
void registerCheckMissingQParams(Registrar &r);
// quantized-model-io: integer-code model inputs and outputs (off in the default pipeline).
void registerQuantizedModelIO(Registrar &r);

} // namespace tico::quant_passes
