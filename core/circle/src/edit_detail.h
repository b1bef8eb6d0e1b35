// Helpers shared by the editing functions (edit*.cpp) and the verifier.
#pragma once

#include "tico/circle/edit.h"

#include <string>
#include <vector>

namespace tico::circle_edit {

// Marks `indices` in a set of `size` elements; throws naming `what` for an index out of range.
std::vector<bool> markIndices(std::size_t size, const std::vector<uint32_t> &indices, const std::string &what);

// old -> new positions when the marked elements are removed (-1 for those).
IndexMap compactionMap(const std::vector<bool> &removed);

// Tensor indices a tensor's block-wise quantization record refers to (scales, zero points);
// negative entries mean "absent" and are not returned.
std::vector<int64_t> quantizationTensorReferences(const CircleTensor &tensor);
// Renumbers those references through `map` (copying the shared record first). References
// outside the map are left as they are.
void remapQuantizationTensorReferences(CircleTensor &tensor, const IndexMap &map);

std::string tensorLabel(const CircleSubGraph &subgraph, std::size_t index);

} // namespace tico::circle_edit
