// Read-only questions the Circle passes ask about operators and tensors: which builtin an
// operator is, whether it may be removed or merged, its fused activation, its options as
// comparable bytes, and tensor "contracts" (type, shape, signature, quantization).
#pragma once

#include "tico/circle/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tico::circle_passes {

using circle::BuiltinOperator;

// The builtin code of `op` (CUSTOM for custom operators, negative for Circle extensions).
BuiltinOperator builtinOf(const CircleModel &model, const CircleOperator &op);
const std::string &customCodeOf(const CircleModel &model, const CircleOperator &op);
int32_t versionOf(const CircleModel &model, const CircleOperator &op);

// Operators a pass must neither delete as dead nor merge with an equal-looking one: control
// flow and calls, stateful and variable ops, random ops, custom ops and anything that reads
// or writes a variable tensor.
bool hasSideEffects(const CircleModel &model, const CircleSubGraph &graph, const CircleOperator &op);

// Subgraphs `op` refers to through its options (IF branches, WHILE cond/body).
std::vector<uint32_t> referencedSubgraphs(const CircleOperator &op);

// The fused activation of an operator whose options have one; nullopt otherwise.
std::optional<circle::ActivationFunctionType> fusedActivationOf(const CircleOperator &op);
// Sets it; false when the options have no such field.
bool setFusedActivation(CircleOperator &op, circle::ActivationFunctionType activation);
// True when the options carry no activation or NONE.
bool hasNoFusedActivation(const CircleOperator &op);

// Canonical bytes of the options union (type tag first), for equality tests and hashing.
std::vector<uint8_t> optionsBytes(const circle::BuiltinOptionsUnion &options);

// Everything that makes two tensors interchangeable as values except their name and data.
bool sameContract(const CircleTensor &a, const CircleTensor &b);
bool sameQuantization(const CircleTensor &a, const CircleTensor &b);
// True when some dimension is dynamic (-1 in shape_signature).
bool isDynamic(const CircleTensor &t);
// Element count of the static shape.
int64_t elementCount(const std::vector<int32_t> &shape);
// The tensor's dims as int64 (static shape).
std::vector<int64_t> dims64(const CircleTensor &t);
// A float32 tensor without quantization, static, not variable.
bool isPlainFloat32(const CircleTensor &t);
bool isQuantized(const CircleTensor &t);

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

std::string opName(BuiltinOperator code);

} // namespace tico::circle_passes
