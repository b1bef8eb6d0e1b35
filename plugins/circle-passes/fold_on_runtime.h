// Evaluates one operator of a Circle model on a runtime (the runtime ABI), for fold-constants.
#pragma once

#include "model_query.h"

#include "tico/circle/edit.h"

#include "tico/runtime/runtime.h"

#include <memory>
#include <optional>
#include <vector>

namespace tico::circle_passes {

// Runs operator `op` of the editor's subgraph on `runtime` as a one-operator model whose inputs
// are the operator's constant inputs (shared, not copied) and whose outputs are its outputs as
// declared. Returns one tensor per output, or nullopt when the runtime refuses the operator or
// fails on it, or a result's dtype or shape differs from the declared one.
std::optional<std::vector<std::shared_ptr<const TensorData>>> evaluateOnRuntime(Runtime &runtime,
                                                                               const SubgraphEditor &editor, int op);

} // namespace tico::circle_passes
