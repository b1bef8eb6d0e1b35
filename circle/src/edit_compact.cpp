// compact(): drops what nothing refers to and renumbers the rest.

#include "edit_detail.h"

#include <algorithm>
#include <deque>

namespace tico {
namespace {

std::size_t dropUnreachableSubgraphs(CircleModel &model) {
  const std::size_t count = model.subgraphs.size();
  if (count == 0)
    return 0;
  std::vector<bool> reachable(count, false);
  std::deque<std::size_t> pending{0};
  for (const auto &signature : model.signatures)
    if (signature.subgraph_index < count)
      pending.push_back(signature.subgraph_index);
  while (!pending.empty()) {
    const std::size_t s = pending.front();
    pending.pop_front();
    if (reachable[s])
      continue;
    reachable[s] = true;
    for (const auto &op : model.subgraphs[s].operators)
      for (int64_t callee : calledSubgraphs(op))
        if (callee >= 0 && static_cast<std::size_t>(callee) < count && !reachable[callee])
          pending.push_back(static_cast<std::size_t>(callee));
  }
  std::vector<uint32_t> unreachable;
  for (std::size_t s = 0; s < count; ++s)
    if (!reachable[s])
      unreachable.push_back(static_cast<uint32_t>(s));
  if (!unreachable.empty())
    removeSubgraphs(model, unreachable);
  return unreachable.size();
}

std::size_t dropUnusedTensors(CircleModel &model, uint32_t subgraph) {
  const CircleSubGraph &sg = model.subgraphs[subgraph];
  std::vector<bool> used(sg.tensors.size(), false);
  std::vector<std::size_t> work;
  auto use = [&](int64_t t) {
    if (t >= 0 && static_cast<std::size_t>(t) < used.size() && !used[t]) {
      used[t] = true;
      work.push_back(static_cast<std::size_t>(t));
    }
  };
  for (const auto &op : sg.operators) {
    for (int32_t t : op.inputs)
      use(t);
    for (int32_t t : op.outputs)
      use(t);
  }
  for (int32_t t : sg.inputs)
    use(t);
  for (int32_t t : sg.outputs)
    use(t);
  for (const auto &signature : model.signatures)
    if (signature.subgraph_index == subgraph)
      for (const auto *maps : {&signature.inputs, &signature.outputs})
        for (const auto &m : *maps)
          use(m.tensor_index);
  // A used tensor keeps the tensors its quantization record points at (block-wise scales).
  while (!work.empty()) {
    const std::size_t t = work.back();
    work.pop_back();
    for (int64_t ref : circle_edit::quantizationTensorReferences(sg.tensors[t]))
      use(ref);
  }
  std::vector<uint32_t> unused;
  for (std::size_t t = 0; t < used.size(); ++t)
    if (!used[t])
      unused.push_back(static_cast<uint32_t>(t));
  if (!unused.empty())
    removeTensors(model, subgraph, unused);
  return unused.size();
}

std::size_t dropUnusedBuffers(CircleModel &model) {
  std::vector<bool> removed(model.buffers.size(), true);
  if (!removed.empty())
    removed[0] = false; // the empty sentinel stays
  for (const auto &sg : model.subgraphs)
    for (const auto &tensor : sg.tensors)
      if (tensor.buffer < removed.size())
        removed[tensor.buffer] = false;
  for (const auto &entry : model.metadata)
    if (entry.second < removed.size())
      removed[entry.second] = false;
  // Count first: the elements are moved out only when something is actually dropped.
  const auto dropped = static_cast<std::size_t>(std::count(removed.begin(), removed.end(), true));
  if (dropped == 0)
    return 0;
  const IndexMap map = circle_edit::compactionMap(removed);
  std::vector<CircleBuffer> kept;
  for (std::size_t b = 0; b < model.buffers.size(); ++b)
    if (!removed[b])
      kept.push_back(std::move(model.buffers[b]));
  model.buffers = std::move(kept);
  for (auto &sg : model.subgraphs)
    for (auto &tensor : sg.tensors)
      if (tensor.buffer < map.size())
        tensor.buffer = static_cast<uint32_t>(map[tensor.buffer]);
  for (auto &entry : model.metadata)
    if (entry.second < map.size())
      entry.second = static_cast<uint32_t>(map[entry.second]);
  return dropped;
}

std::size_t dropUnusedOperatorCodes(CircleModel &model) {
  std::vector<bool> removed(model.operator_codes.size(), true);
  for (const auto &sg : model.subgraphs)
    for (const auto &op : sg.operators)
      if (op.opcode_index < removed.size())
        removed[op.opcode_index] = false;
  const auto dropped = static_cast<std::size_t>(std::count(removed.begin(), removed.end(), true));
  if (dropped == 0)
    return 0;
  const IndexMap map = circle_edit::compactionMap(removed);
  std::vector<CircleOperatorCode> kept;
  for (std::size_t c = 0; c < model.operator_codes.size(); ++c)
    if (!removed[c])
      kept.push_back(std::move(model.operator_codes[c]));
  model.operator_codes = std::move(kept);
  for (auto &sg : model.subgraphs)
    for (auto &op : sg.operators)
      if (op.opcode_index < map.size())
        op.opcode_index = static_cast<uint32_t>(map[op.opcode_index]);
  return dropped;
}

} // namespace

CompactResult compact(CircleModel &model, const CompactOptions &options) {
  CompactResult result;
  if (options.subgraphs)
    result.subgraphs = dropUnreachableSubgraphs(model);
  if (options.tensors)
    for (std::size_t s = 0; s < model.subgraphs.size(); ++s)
      result.tensors += dropUnusedTensors(model, static_cast<uint32_t>(s));
  if (options.buffers)
    result.buffers = dropUnusedBuffers(model);
  if (options.operator_codes)
    result.operator_codes = dropUnusedOperatorCodes(model);
  return result;
}

} // namespace tico
