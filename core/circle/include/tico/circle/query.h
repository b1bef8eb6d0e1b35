// Read-only questions about a CircleModel, asked by the editor, the verifier, the Circle passes
// and the tools alike (so they all agree on what an operator is called, which tensors are
// constants, and what an operator may not lose).
//
// Functions taking an operator or tensor index accept any value: out-of-range indices (and the
// -1 of an omitted optional input) are treated as "nothing there", never as an error.
#pragma once

#include "tico/circle/model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tico {

// ---- Dataflow ----------------------------------------------------------------------------------

// The operator that writes each tensor of `subgraph` (-1: none; the first one when several do).
std::vector<int32_t> tensorProducers(const CircleSubGraph &subgraph);
// The operators that read each tensor (in operator order, an operator once per tensor).
std::vector<std::vector<uint32_t>> tensorConsumers(const CircleSubGraph &subgraph);

// Subgraph indices an operator refers to through its options (IfOptions, WhileOptions,
// CallOptions, CallOnceOptions), in option field order. Unlike the options fields these are
// plain integers; negative values are returned as they are.
std::vector<int64_t> calledSubgraphs(const CircleOperator &op);
// Calls `visit(index)` for each subgraph reference of `op`, allowing it to change the value.
void forEachSubgraphReference(CircleOperator &op, const std::function<void(int64_t &)> &visit);

// ---- Operators ---------------------------------------------------------------------------------

// The builtin code of `op` (CUSTOM for custom operators and for an operator-code index out of
// range, negative for Circle extensions).
circle::BuiltinOperator builtinOf(const CircleModel &model, const CircleOperator &op);
// Custom code and version of the operator's code ("" and 1 for an index out of range).
const std::string &customCodeOf(const CircleModel &model, const CircleOperator &op);
int32_t versionOf(const CircleModel &model, const CircleOperator &op);

// The name tools and messages show for an operator code: "ADD", "CUSTOM(MyOp)", "operator code
// 5000" for a builtin code the schema does not name, "operator code #9" for an index that
// names no operator code.
std::string operatorCodeName(const CircleModel &model, uint32_t opcode_index);
// The same for the code `op` uses.
std::string operatorName(const CircleModel &model, const CircleOperator &op);

// Operators that must be neither deleted as dead nor merged with an equal-looking one: control
// flow and calls, stateful and variable ops, random ops, custom ops, and anything that reads or
// writes a variable tensor of `subgraph`.
bool hasSideEffects(const CircleModel &model, const CircleSubGraph &subgraph, const CircleOperator &op);

// The fused activation of an operator whose options have one; nullopt otherwise.
std::optional<circle::ActivationFunctionType> fusedActivationOf(const CircleOperator &op);
// Sets it; false when the options have no such field.
bool setFusedActivation(CircleOperator &op, circle::ActivationFunctionType activation);
// True when the options carry no activation or NONE.
bool hasNoFusedActivation(const CircleOperator &op);

// Canonical bytes of the options union (type tag first), for equality tests and hashing.
std::vector<uint8_t> optionsBytes(const circle::BuiltinOptionsUnion &options);

// ---- Tensors -----------------------------------------------------------------------------------

// Bytes per element of the types whose payload size follows from the shape; 0 for packed,
// block-quantized and variable-length types (INT4, STRING, ...).
std::size_t circleElementSize(circle::TensorType type);

// Whether the tensor's buffer holds data (of any size): the tensor is defined by its payload.
bool isConstantTensor(const CircleModel &model, const CircleTensor &tensor);
// Stricter: a constant whose payload can be read as values of the tensor's type and shape — not
// variable, a static shape, a fixed-size type, and a payload of exactly that many bytes.
bool hasTypedPayload(const CircleModel &model, const CircleTensor &tensor);

// True when some dimension is dynamic (-1 in shape_signature).
bool isDynamic(const CircleTensor &tensor);
// True when the tensor has scales, zero points or quantization details.
bool isQuantized(const CircleTensor &tensor);
// Equal quantization parameters (records with custom details are equal only when shared).
bool sameQuantization(const CircleTensor &a, const CircleTensor &b);
// Everything that makes two tensors interchangeable as values except their name and data:
// type, shape, signature, variability and quantization.
bool sameContract(const CircleTensor &a, const CircleTensor &b);

} // namespace tico
