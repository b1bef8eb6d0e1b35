// Helpers shared by the editing functions (edit*.cpp) and the verifier.

#include "edit_detail.h"

#include "tico/support/error.h"

#include <memory>

namespace tico {

namespace circle_edit {

std::vector<bool> markIndices(std::size_t size, const std::vector<uint32_t> &indices, const std::string &what) {
  std::vector<bool> marked(size, false);
  for (uint32_t index : indices) {
    if (index >= size)
      throw Error("cannot edit Circle model: " + what + " index " + std::to_string(index) +
                  " out of range (" + std::to_string(size) + " " + what + "s)");
    marked[index] = true;
  }
  return marked;
}

IndexMap compactionMap(const std::vector<bool> &removed) {
  IndexMap map(removed.size(), -1);
  int32_t next = 0;
  for (std::size_t i = 0; i < removed.size(); ++i)
    if (!removed[i])
      map[i] = next++;
  return map;
}

std::vector<int64_t> quantizationTensorReferences(const CircleTensor &tensor) {
  std::vector<int64_t> out;
  if (!tensor.quantization)
    return out;
  if (const auto *block = tensor.quantization->details.AsBlockwiseQuantization()) {
    if (block->scales >= 0)
      out.push_back(block->scales);
    if (block->zero_points >= 0)
      out.push_back(block->zero_points);
  }
  return out;
}

void remapQuantizationTensorReferences(CircleTensor &tensor, const IndexMap &map) {
  if (!tensor.quantization || !tensor.quantization->details.AsBlockwiseQuantization())
    return;
  auto copy = std::make_shared<circle::QuantizationParametersT>(*tensor.quantization);
  auto *block = copy->details.AsBlockwiseQuantization();
  for (int32_t *field : {&block->scales, &block->zero_points})
    if (*field >= 0 && static_cast<std::size_t>(*field) < map.size() && map[*field] >= 0)
      *field = map[*field];
  tensor.quantization = std::move(copy);
}

std::string tensorLabel(const CircleSubGraph &subgraph, std::size_t index) {
  std::string label = "tensor " + std::to_string(index);
  if (index < subgraph.tensors.size() && !subgraph.tensors[index].name.empty())
    label += " '" + subgraph.tensors[index].name + "'";
  return label;
}

} // namespace circle_edit
} // namespace tico
