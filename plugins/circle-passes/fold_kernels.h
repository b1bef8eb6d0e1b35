// Reference kernels that evaluate an operator on constant inputs, for fold-constants.
//
// Kept deliberately small and exact: row-major loops in the operator's own element type, the
// same rounding the runtimes use (float32 arithmetic in float, casts truncating toward zero),
// and integer arithmetic that refuses to fold on overflow rather than wrap.
#pragma once

#include "subgraph_editor.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace tico::circle_passes {

struct ConstValue {
  circle::TensorType type = circle::TensorType::FLOAT32;
  std::vector<int32_t> shape;
  std::vector<std::byte> bytes;
};

enum class FoldProfile { Basic, Heavy };

// The operators `profile` can evaluate (for documentation and tests).
std::vector<BuiltinOperator> foldableOperators(FoldProfile profile);

// Evaluates operator `op` of the editor's subgraph. Every input must be a constant (or an
// omitted optional input), except for SHAPE, which needs only a static input. Returns one
// value per output, or nullopt when the operator, its types or its options are not supported.
std::optional<std::vector<ConstValue>> evaluateOperator(const SubgraphEditor &editor, int op, FoldProfile profile);

} // namespace tico::circle_passes
