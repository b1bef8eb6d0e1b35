// compact: removes unused tensors, buffers and operator codes, renumbers what is left in a
// canonical order, and makes tensor names unique.
//
// The canonical order is the order of first use: a subgraph's inputs, then every operator's
// inputs and outputs in execution order, then its outputs; buffers in the order tensors refer
// to them (subgraph by subgraph), metadata buffers last; operator codes in the order operators
// use them. Because the numbering depends only on the final graph and not on the order in
// which passes created objects, differently scheduled pipelines that reach the same graph
// write the same bytes. Every index is remapped together: operator inputs/outputs, subgraph
// inputs/outputs, signature tensor maps, tensor buffers, metadata, operator codes.
#include "pass_registration.h"
#include "passes.h"

#include <map>
#include <set>

namespace tico::circle_passes {
namespace {

// First-use numbering of the indices passed to visit().
class Numbering {
public:
  explicit Numbering(std::size_t size) : new_index_(size, -1) {}
  void visit(int64_t index) {
    if (index < 0 || static_cast<std::size_t>(index) >= new_index_.size() || new_index_[index] >= 0)
      return;
    new_index_[index] = static_cast<int64_t>(order_.size());
    order_.push_back(index);
  }
  const std::vector<int64_t> &order() const { return order_; }
  int64_t map(int64_t index) const {
    return index >= 0 && static_cast<std::size_t>(index) < new_index_.size() ? new_index_[index] : index;
  }
  // True when the numbering keeps every index where it is.
  bool identity() const {
    if (order_.size() != new_index_.size())
      return false;
    for (std::size_t i = 0; i < order_.size(); ++i)
      if (order_[i] != static_cast<int64_t>(i))
        return false;
    return true;
  }

private:
  std::vector<int64_t> new_index_;
  std::vector<int64_t> order_;
};

template <typename T> std::vector<T> reorder(std::vector<T> &items, const Numbering &numbering) {
  std::vector<T> out;
  out.reserve(numbering.order().size());
  for (int64_t i : numbering.order())
    out.push_back(std::move(items[i]));
  return out;
}

bool compactTensors(CircleModel &model, uint32_t s) {
  CircleSubGraph &g = model.subgraphs[s];
  Numbering numbering(g.tensors.size());
  for (int32_t t : g.inputs)
    numbering.visit(t);
  for (const auto &op : g.operators) {
    for (int32_t t : op.inputs)
      numbering.visit(t);
    for (int32_t t : op.outputs)
      numbering.visit(t);
  }
  for (int32_t t : g.outputs)
    numbering.visit(t);
  for (const auto &sig : model.signatures)
    if (sig.subgraph_index == s) {
      for (const auto &m : sig.inputs)
        numbering.visit(m.tensor_index);
      for (const auto &m : sig.outputs)
        numbering.visit(m.tensor_index);
    }
  if (numbering.identity())
    return false;
  g.tensors = reorder(g.tensors, numbering);
  auto remap = [&](std::vector<int32_t> &indices) {
    for (int32_t &t : indices)
      t = static_cast<int32_t>(numbering.map(t));
  };
  for (auto &op : g.operators) {
    remap(op.inputs);
    remap(op.outputs);
  }
  remap(g.inputs);
  remap(g.outputs);
  for (auto &sig : model.signatures)
    if (sig.subgraph_index == s) {
      for (auto &m : sig.inputs)
        m.tensor_index = static_cast<uint32_t>(numbering.map(m.tensor_index));
      for (auto &m : sig.outputs)
        m.tensor_index = static_cast<uint32_t>(numbering.map(m.tensor_index));
    }
  return true;
}

bool compactBuffers(CircleModel &model) {
  Numbering numbering(model.buffers.size());
  numbering.visit(0); // the empty sentinel stays first
  for (const auto &g : model.subgraphs)
    for (const auto &t : g.tensors)
      numbering.visit(t.buffer);
  for (const auto &m : model.metadata)
    numbering.visit(m.second);
  if (numbering.identity())
    return false;
  model.buffers = reorder(model.buffers, numbering);
  for (auto &g : model.subgraphs)
    for (auto &t : g.tensors)
      t.buffer = static_cast<uint32_t>(numbering.map(t.buffer));
  for (auto &m : model.metadata)
    m.second = static_cast<uint32_t>(numbering.map(m.second));
  return true;
}

bool compactOperatorCodes(CircleModel &model) {
  Numbering numbering(model.operator_codes.size());
  for (const auto &g : model.subgraphs)
    for (const auto &op : g.operators)
      numbering.visit(op.opcode_index);
  if (numbering.identity())
    return false;
  model.operator_codes = reorder(model.operator_codes, numbering);
  for (auto &g : model.subgraphs)
    for (auto &op : g.operators)
      op.opcode_index = static_cast<uint32_t>(numbering.map(op.opcode_index));
  return true;
}

// Duplicate names become "<name>_<k>" with the smallest free k, in tensor order; interface
// tensors keep their names (they are what users and signatures refer to).
bool uniquifyNames(CircleSubGraph &g) {
  std::set<std::string> used;
  std::vector<uint8_t> interface(g.tensors.size(), 0);
  for (const auto *list : {&g.inputs, &g.outputs})
    for (int32_t t : *list)
      if (t >= 0 && static_cast<std::size_t>(t) < g.tensors.size()) {
        interface[t] = 1;
        used.insert(g.tensors[t].name);
      }
  bool changed = false;
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    std::string &name = g.tensors[i].name;
    if (interface[i] || name.empty())
      continue;
    if (used.insert(name).second)
      continue;
    for (int k = 1;; ++k) {
      std::string candidate = name + "_" + std::to_string(k);
      if (used.insert(candidate).second) {
        name = candidate;
        break;
      }
    }
    changed = true;
  }
  return changed;
}

class Compact final : public CirclePass {
public:
  explicit Compact(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    bool changed = false;
    for (uint32_t s = 0; s < model.subgraphs.size(); ++s)
      changed |= compactTensors(model, s);
    changed |= compactBuffers(model);
    changed |= compactOperatorCodes(model);
    for (auto &g : model.subgraphs)
      changed |= uniquifyNames(g);
    return changed;
  }
};

} // namespace

void registerCompact(Registrar &r) {
  registerCirclePass<Compact>(r, "compact",
                              "remove unused tensors, buffers and operator codes; renumber in first-use order; "
                              "make tensor names unique");
}

} // namespace tico::circle_passes
