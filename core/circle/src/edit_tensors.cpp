// Removing operators and tensors, adding tensors and redirecting a tensor's uses.

#include "edit_detail.h"

#include "tico/support/error.h"

#include <algorithm>

namespace tico {
namespace {

using circle_edit::compactionMap;
using circle_edit::markIndices;
using circle_edit::tensorLabel;

CircleSubGraph &subgraphAt(CircleModel &model, uint32_t subgraph) {
  if (subgraph >= model.subgraphs.size())
    throw Error("cannot edit Circle model: subgraph index " + std::to_string(subgraph) + " out of range (" +
                std::to_string(model.subgraphs.size()) + " subgraphs)");
  return model.subgraphs[subgraph];
}

void checkTensorIndex(const CircleSubGraph &sg, uint32_t index) {
  if (index >= sg.tensors.size())
    throw Error("cannot edit Circle model: tensor index " + std::to_string(index) + " out of range (" +
                std::to_string(sg.tensors.size()) + " tensors)");
}

// Keeps the entries whose tensor survives, renumbered.
template <typename T, typename Get> void remapList(std::vector<T> &list, const IndexMap &map, Get get) {
  std::vector<T> kept;
  kept.reserve(list.size());
  for (auto &entry : list) {
    auto &index = get(entry);
    if (index >= 0 && static_cast<std::size_t>(index) < map.size()) {
      if (map[index] < 0)
        continue;
      index = static_cast<std::remove_reference_t<decltype(index)>>(map[index]);
    }
    kept.push_back(std::move(entry));
  }
  list = std::move(kept);
}

} // namespace

IndexMap removeOperators(CircleModel &model, uint32_t subgraph, const std::vector<uint32_t> &operators) {
  CircleSubGraph &sg = subgraphAt(model, subgraph);
  const auto removed = markIndices(sg.operators.size(), operators, "operator");
  const IndexMap map = compactionMap(removed);
  std::vector<CircleOperator> kept;
  kept.reserve(sg.operators.size());
  for (std::size_t o = 0; o < sg.operators.size(); ++o)
    if (!removed[o])
      kept.push_back(std::move(sg.operators[o]));
  sg.operators = std::move(kept);
  return map;
}

IndexMap removeTensors(CircleModel &model, uint32_t subgraph, const std::vector<uint32_t> &tensors) {
  CircleSubGraph &sg = subgraphAt(model, subgraph);
  const auto removed = markIndices(sg.tensors.size(), tensors, "tensor");
  auto isRemoved = [&](int64_t t) { return t >= 0 && static_cast<std::size_t>(t) < removed.size() && removed[t]; };

  // Refuse before changing anything: the model stays as it was.
  for (std::size_t o = 0; o < sg.operators.size(); ++o) {
    const CircleOperator &op = sg.operators[o];
    for (const auto *list : {&op.inputs, &op.outputs})
      for (int32_t t : *list)
        if (isRemoved(t))
          throw Error("cannot remove " + tensorLabel(sg, t) + " of subgraph " + std::to_string(subgraph) +
                      ": operator " + std::to_string(o) + " still " + (list == &op.inputs ? "reads" : "writes") +
                      " it");
  }
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    if (removed[t])
      continue;
    for (int64_t ref : circle_edit::quantizationTensorReferences(sg.tensors[t]))
      if (isRemoved(ref))
        throw Error("cannot remove " + tensorLabel(sg, ref) + " of subgraph " + std::to_string(subgraph) +
                    ": the quantization record of " + tensorLabel(sg, t) + " refers to it");
  }

  const IndexMap map = compactionMap(removed);
  for (auto &op : sg.operators)
    for (auto *list : {&op.inputs, &op.outputs})
      for (int32_t &t : *list)
        if (t >= 0 && static_cast<std::size_t>(t) < map.size())
          t = map[t];
  remapList(sg.inputs, map, [](int32_t &t) -> int32_t & { return t; });
  remapList(sg.outputs, map, [](int32_t &t) -> int32_t & { return t; });
  for (auto &signature : model.signatures) {
    if (signature.subgraph_index != subgraph)
      continue;
    for (auto *maps : {&signature.inputs, &signature.outputs})
      remapList(*maps, map, [](CircleTensorMap &m) -> uint32_t & { return m.tensor_index; });
  }
  std::vector<CircleTensor> kept;
  kept.reserve(sg.tensors.size());
  for (std::size_t t = 0; t < sg.tensors.size(); ++t)
    if (!removed[t]) {
      circle_edit::remapQuantizationTensorReferences(sg.tensors[t], map);
      kept.push_back(std::move(sg.tensors[t]));
    }
  sg.tensors = std::move(kept);
  return map;
}

uint32_t addTensor(CircleModel &model, uint32_t subgraph, CircleTensor tensor) {
  CircleSubGraph &sg = subgraphAt(model, subgraph);
  sg.tensors.push_back(std::move(tensor));
  return static_cast<uint32_t>(sg.tensors.size() - 1);
}

std::size_t replaceTensorUses(CircleModel &model, uint32_t subgraph, uint32_t from, uint32_t to,
                              const ReplaceUsesOptions &options) {
  CircleSubGraph &sg = subgraphAt(model, subgraph);
  checkTensorIndex(sg, from);
  checkTensorIndex(sg, to);
  std::vector<bool> selected;
  if (!options.only_operators.empty())
    selected = markIndices(sg.operators.size(), options.only_operators, "operator");

  std::size_t changed = 0;
  const auto old_index = static_cast<int32_t>(from), new_index = static_cast<int32_t>(to);
  for (std::size_t o = 0; o < sg.operators.size(); ++o) {
    if (!selected.empty() && !selected[o])
      continue;
    for (int32_t &t : sg.operators[o].inputs)
      if (t == old_index) {
        t = new_index;
        ++changed;
      }
  }
  if (options.subgraph_outputs) {
    for (int32_t &t : sg.outputs)
      if (t == old_index) {
        t = new_index;
        ++changed;
      }
    for (auto &signature : model.signatures)
      if (signature.subgraph_index == subgraph)
        for (auto &m : signature.outputs)
          if (m.tensor_index == from) {
            m.tensor_index = to;
            ++changed;
          }
  }
  return changed;
}

} // namespace tico
