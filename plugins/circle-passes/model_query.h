// Questions only the Circle passes ask, on top of the generic queries of the Circle document
// library (tico/circle/query.h: operator codes and names, side effects, fused activations,
// option bytes, tensor contracts): static shapes as counts and int64 dims, plain float32
// tensors, activations as operators, elementwise op classes.
#pragma once

#include "tico/circle/query.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tico::circle_passes {

using circle::BuiltinOperator;

// Element count of the static shape.
int64_t elementCount(const std::vector<int32_t> &shape);
// The tensor's dims as int64 (static shape).
std::vector<int64_t> dims64(const CircleTensor &t);
// A float32 tensor without quantization, static, not variable.
bool isPlainFloat32(const CircleTensor &t);
// A float32 activation a fusion may rewire: not quantized, not variable; dynamic dims allowed
// (the fusions change parameters and operator outputs, never a shape, so a dynamic batch or
// sequence does not matter as long as the constants involved are plain).
bool isFloat32Activation(const CircleTensor &t);

// Activation codes that stand alone as operators, and their fused-activation counterpart.
std::optional<circle::ActivationFunctionType> activationForOperator(BuiltinOperator code);
// The activation equal to applying `inner` first and then `outer`, when one exists.
std::optional<circle::ActivationFunctionType> composeActivations(circle::ActivationFunctionType inner,
                                                                 circle::ActivationFunctionType outer);

// Ops whose output element i depends only on input element i (same shapes, no broadcasting
// needed). Used by layout and reshape motion.
bool isUnaryElementwise(BuiltinOperator code);
// Binary elementwise ops with NumPy broadcasting.
bool isBinaryElementwise(BuiltinOperator code);

} // namespace tico::circle_passes
