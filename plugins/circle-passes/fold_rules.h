// Which operators fold-constants may evaluate, and on which constant inputs.
//
// The values themselves come from a runtime's kernels (fold_on_runtime.h). These rules decide
// what is safe to replace by a stored constant: the operator belongs to the profile, its inputs
// are constants of the types the profile covers, and the result is exact in the sense the
// pass promises: integer arithmetic that would wrap, casts out of range or of non-finite values,
// negative gather indices and the like stay computed at run time instead of being frozen.
#pragma once

#include "model_query.h"

#include "tico/circle/edit.h"

#include <vector>

namespace tico::circle_passes {

enum class FoldProfile { Basic, Heavy };

// The operators `profile` can evaluate (for documentation and tests).
std::vector<BuiltinOperator> foldableOperators(FoldProfile profile);

// True when operator `op` of the editor's subgraph may be folded under `profile`: every input
// is a constant (or an omitted optional input), except for SHAPE, which needs only a static
// input, and the operator-specific conditions above hold.
bool mayFold(const SubgraphEditor &editor, int op, FoldProfile profile);

} // namespace tico::circle_passes
