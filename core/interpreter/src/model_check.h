// Construction-time checks of a model before anything runs.
#pragma once

#include "tico/circle/model.h"

namespace tico::interp {

// Tensor, buffer, opcode and subgraph indices are in range, every operator reads only tensors
// that exist by then (subgraph inputs, constants, earlier outputs), nothing writes a constant or
// writes a tensor twice. Throws tico::Error naming the first problem.
void checkModelStructure(const CircleModel &model);

// Every operator has a kernel that accepts its declared dtypes and options. Throws one
// tico::Error listing every unsupported operator with its count (and the reason).
void checkOperatorSupport(const CircleModel &model);

// A tensor whose buffer holds data.
bool isConstant(const CircleModel &model, const CircleTensor &tensor);

} // namespace tico::interp
