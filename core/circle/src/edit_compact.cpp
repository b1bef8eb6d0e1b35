// compact(): drops what nothing refers to and renumbers the rest, keeping the survivors' order
// or renumbering them in order of first use (CompactOrder).

#include "edit_detail.h"

#include <algorithm>
#include <deque>
#include <set>

namespace tico {
namespace {

// The elements that survive and their new positions: visit() marks an index used (the first
// visit fixes its place in first-use order); finish() turns the visits into the final order.
class Numbering {
public:
  explicit Numbering(std::size_t size) : map_(size, -1) {}

  void visit(int64_t index) {
    if (index < 0 || static_cast<std::size_t>(index) >= map_.size() || map_[index] >= 0)
      return;
    map_[index] = static_cast<int32_t>(order_.size());
    order_.push_back(static_cast<std::size_t>(index));
  }
  // Also visits what the visited elements refer to through `references(index)`, transitively.
  template <typename Fn> void visitReferences(Fn &&references) {
    for (std::size_t i = 0; i < order_.size(); ++i) // order_ grows while this runs
      for (int64_t ref : references(order_[i]))
        visit(ref);
  }

  void finish(CompactOrder order) {
    if (order == CompactOrder::Keep) {
      std::sort(order_.begin(), order_.end());
      for (std::size_t i = 0; i < order_.size(); ++i)
        map_[order_[i]] = static_cast<int32_t>(i);
    }
  }

  std::size_t dropped() const { return map_.size() - order_.size(); }
  // True when a surviving element changes its place relative to the others.
  bool reordered() const { return !std::is_sorted(order_.begin(), order_.end()); }
  bool identity() const { return dropped() == 0 && !reordered(); }
  const IndexMap &map() const { return map_; }
  // A reference after renumbering; references that name no element are kept as they are.
  int64_t operator()(int64_t index) const {
    return index >= 0 && static_cast<std::size_t>(index) < map_.size() ? map_[index] : index;
  }

  template <typename T> void apply(std::vector<T> &items) const {
    std::vector<T> kept;
    kept.reserve(order_.size());
    for (std::size_t i : order_)
      kept.push_back(std::move(items[i]));
    items = std::move(kept);
  }

private:
  IndexMap map_;
  std::vector<std::size_t> order_;
};

void remapIndices(std::vector<int32_t> &indices, const Numbering &numbering) {
  for (int32_t &index : indices)
    index = static_cast<int32_t>(numbering(index));
}

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

// First use: the subgraph's inputs, every operator's inputs and outputs in execution order, its
// outputs, the signature maps; then the tensors that block-wise quantization records of used
// tensors point at (scales, zero points), which must stay with them.
Numbering numberTensors(const CircleModel &model, uint32_t subgraph, CompactOrder order) {
  const CircleSubGraph &sg = model.subgraphs[subgraph];
  Numbering numbering(sg.tensors.size());
  for (int32_t t : sg.inputs)
    numbering.visit(t);
  for (const auto &op : sg.operators) {
    for (int32_t t : op.inputs)
      numbering.visit(t);
    for (int32_t t : op.outputs)
      numbering.visit(t);
  }
  for (int32_t t : sg.outputs)
    numbering.visit(t);
  for (const auto &signature : model.signatures)
    if (signature.subgraph_index == subgraph)
      for (const auto *maps : {&signature.inputs, &signature.outputs})
        for (const auto &m : *maps)
          numbering.visit(m.tensor_index);
  numbering.visitReferences([&](std::size_t t) { return circle_edit::quantizationTensorReferences(sg.tensors[t]); });
  numbering.finish(order);
  return numbering;
}

std::size_t compactTensors(CircleModel &model, uint32_t subgraph, CompactOrder order, bool &reordered) {
  const Numbering numbering = numberTensors(model, subgraph, order);
  if (numbering.identity())
    return 0;
  reordered |= numbering.reordered();
  CircleSubGraph &sg = model.subgraphs[subgraph];
  numbering.apply(sg.tensors);
  for (auto &tensor : sg.tensors)
    circle_edit::remapQuantizationTensorReferences(tensor, numbering.map());
  for (auto &op : sg.operators) {
    remapIndices(op.inputs, numbering);
    remapIndices(op.outputs, numbering);
  }
  remapIndices(sg.inputs, numbering);
  remapIndices(sg.outputs, numbering);
  for (auto &signature : model.signatures)
    if (signature.subgraph_index == subgraph)
      for (auto *maps : {&signature.inputs, &signature.outputs})
        for (auto &m : *maps)
          m.tensor_index = static_cast<uint32_t>(numbering(m.tensor_index));
  return numbering.dropped();
}

// First use: the empty sentinel (which always stays first), the tensors' buffers subgraph by
// subgraph, then the metadata buffers.
std::size_t compactBuffers(CircleModel &model, CompactOrder order, bool &reordered) {
  Numbering numbering(model.buffers.size());
  numbering.visit(0);
  for (const auto &sg : model.subgraphs)
    for (const auto &tensor : sg.tensors)
      numbering.visit(tensor.buffer);
  for (const auto &entry : model.metadata)
    numbering.visit(entry.second);
  numbering.finish(order);
  if (numbering.identity())
    return 0;
  reordered |= numbering.reordered();
  numbering.apply(model.buffers);
  for (auto &sg : model.subgraphs)
    for (auto &tensor : sg.tensors)
      tensor.buffer = static_cast<uint32_t>(numbering(tensor.buffer));
  for (auto &entry : model.metadata)
    entry.second = static_cast<uint32_t>(numbering(entry.second));
  return numbering.dropped();
}

// First use: the order in which operators use them, subgraph by subgraph.
std::size_t compactOperatorCodes(CircleModel &model, CompactOrder order, bool &reordered) {
  Numbering numbering(model.operator_codes.size());
  for (const auto &sg : model.subgraphs)
    for (const auto &op : sg.operators)
      numbering.visit(op.opcode_index);
  numbering.finish(order);
  if (numbering.identity())
    return 0;
  reordered |= numbering.reordered();
  numbering.apply(model.operator_codes);
  for (auto &sg : model.subgraphs)
    for (auto &op : sg.operators)
      op.opcode_index = static_cast<uint32_t>(numbering(op.opcode_index));
  return numbering.dropped();
}

// Duplicate names become "<name>_<k>" with the smallest free k, in tensor order; the subgraph's
// inputs and outputs keep their names (they are what users and signatures refer to).
std::size_t uniquifyTensorNames(CircleSubGraph &sg) {
  std::set<std::string> used;
  std::vector<bool> interface(sg.tensors.size(), false);
  for (const auto *list : {&sg.inputs, &sg.outputs})
    for (int32_t t : *list)
      if (t >= 0 && static_cast<std::size_t>(t) < sg.tensors.size()) {
        interface[t] = true;
        used.insert(sg.tensors[t].name);
      }
  std::size_t renamed = 0;
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    std::string &name = sg.tensors[t].name;
    if (interface[t] || name.empty() || used.insert(name).second)
      continue;
    for (int k = 1;; ++k) {
      std::string candidate = name + "_" + std::to_string(k);
      if (used.insert(candidate).second) {
        name = std::move(candidate);
        break;
      }
    }
    ++renamed;
  }
  return renamed;
}

} // namespace

CompactResult compact(CircleModel &model, const CompactOptions &options) {
  CompactResult result;
  if (options.subgraphs)
    result.subgraphs = dropUnreachableSubgraphs(model);
  if (options.tensors)
    for (std::size_t s = 0; s < model.subgraphs.size(); ++s)
      result.tensors += compactTensors(model, static_cast<uint32_t>(s), options.order, result.reordered);
  if (options.buffers)
    result.buffers = compactBuffers(model, options.order, result.reordered);
  if (options.operator_codes)
    result.operator_codes = compactOperatorCodes(model, options.order, result.reordered);
  if (options.unique_names)
    for (auto &sg : model.subgraphs)
      result.renamed += uniquifyTensorNames(sg);
  return result;
}

} // namespace tico
