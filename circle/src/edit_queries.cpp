// Read-only questions about a CircleModel that editing code and the verifier both ask.

#include "edit_detail.h"

#include "tico/support/error.h"

#include <memory>

namespace tico {

std::vector<int32_t> tensorProducers(const CircleSubGraph &subgraph) {
  std::vector<int32_t> producers(subgraph.tensors.size(), -1);
  for (std::size_t o = 0; o < subgraph.operators.size(); ++o)
    for (int32_t t : subgraph.operators[o].outputs)
      if (t >= 0 && static_cast<std::size_t>(t) < producers.size() && producers[t] < 0)
        producers[t] = static_cast<int32_t>(o);
  return producers;
}

std::vector<std::vector<uint32_t>> tensorConsumers(const CircleSubGraph &subgraph) {
  std::vector<std::vector<uint32_t>> consumers(subgraph.tensors.size());
  for (std::size_t o = 0; o < subgraph.operators.size(); ++o)
    for (int32_t t : subgraph.operators[o].inputs)
      if (t >= 0 && static_cast<std::size_t>(t) < consumers.size() &&
          (consumers[t].empty() || consumers[t].back() != o))
        consumers[t].push_back(static_cast<uint32_t>(o));
  return consumers;
}

bool isConstantTensor(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.buffer >= model.buffers.size())
    return false;
  const auto &data = model.buffers[tensor.buffer].data;
  return data && data->nbytes() > 0;
}

void forEachSubgraphReference(CircleOperator &op, const std::function<void(int64_t &)> &visit) {
  auto visitField = [&](auto &field) {
    int64_t value = field;
    visit(value);
    field = static_cast<std::remove_reference_t<decltype(field)>>(value);
  };
  auto &options = op.builtin_options;
  if (auto *o = options.AsIfOptions()) {
    visitField(o->then_subgraph_index);
    visitField(o->else_subgraph_index);
  } else if (auto *o = options.AsWhileOptions()) {
    visitField(o->cond_subgraph_index);
    visitField(o->body_subgraph_index);
  } else if (auto *o = options.AsCallOptions()) {
    visitField(o->subgraph);
  } else if (auto *o = options.AsCallOnceOptions()) {
    visitField(o->init_subgraph_index);
  }
}

std::vector<int64_t> calledSubgraphs(const CircleOperator &op) {
  std::vector<int64_t> out;
  // The visitor only reads; the const_cast lets both questions share one list of fields.
  forEachSubgraphReference(const_cast<CircleOperator &>(op), [&](int64_t &index) { out.push_back(index); });
  return out;
}

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
