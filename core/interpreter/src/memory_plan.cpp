#include "memory_plan.h"

#include <algorithm>
#include <numeric>

namespace tico::interp {
namespace {

constexpr std::size_t kAlignment = 64;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// Union-find over tensors; the root of a group carries its lifetime and whether it is planned.
class Groups {
public:
  explicit Groups(std::size_t n) : parent_(n), first_(n, -1), last_(n, -1), planned_(n, true) {
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
  }
  std::size_t root(std::size_t t) {
    while (parent_[t] != t)
      t = parent_[t] = parent_[parent_[t]];
    return t;
  }
  // Joins b's group into a's; lifetime and plannability combine.
  void join(std::size_t a, std::size_t b) {
    a = root(a);
    b = root(b);
    if (a == b)
      return;
    parent_[b] = a;
    first_[a] = first_[a] < 0 ? first_[b] : (first_[b] < 0 ? first_[a] : std::min(first_[a], first_[b]));
    last_[a] = std::max(last_[a], last_[b]);
    planned_[a] = planned_[a] && planned_[b];
  }
  int64_t &first(std::size_t t) { return first_[root(t)]; }
  int64_t &last(std::size_t t) { return last_[root(t)]; }
  void exclude(std::size_t t) { planned_[root(t)] = false; }
  bool planned(std::size_t t) { return planned_[root(t)]; }

private:
  std::vector<std::size_t> parent_;
  std::vector<int64_t> first_, last_;
  std::vector<bool> planned_;
};

} // namespace

MemoryPlan planMemory(const std::vector<PlanTensor> &tensors, const std::vector<PlanOperator> &ops) {
  const std::size_t n = tensors.size();
  MemoryPlan plan;
  plan.offset.assign(n, -1);
  plan.bytes.assign(n, 0);
  Groups groups(n);
  std::vector<bool> written(n, false);
  for (std::size_t t = 0; t < n; ++t)
    if (tensors[t].external || !tensors[t].bytes || *tensors[t].bytes == 0)
      groups.exclude(t);

  // Lifetimes of single tensors: [writer, last reader].
  std::vector<int64_t> first(n, -1), last(n, -1);
  for (std::size_t o = 0; o < ops.size(); ++o) {
    for (int32_t t : ops[o].inputs)
      if (t >= 0)
        last[static_cast<std::size_t>(t)] = static_cast<int64_t>(o);
    for (int32_t t : ops[o].outputs) {
      const auto u = static_cast<std::size_t>(t);
      if (first[u] < 0)
        first[u] = static_cast<int64_t>(o);
      if (written[u]) // written twice: not a plain dataflow tensor
        groups.exclude(u);
      written[u] = true;
    }
  }
  for (std::size_t t = 0; t < n; ++t) {
    if (!written[t])
      groups.exclude(t);
    groups.first(t) = first[t];
    groups.last(t) = std::max(first[t], last[t]);
  }

  // Groups: views share their input's memory; control flow keeps its tensors to the pool.
  for (const PlanOperator &op : ops) {
    if (op.opaque) {
      for (int32_t t : op.inputs)
        if (t >= 0)
          groups.exclude(static_cast<std::size_t>(t));
      for (int32_t t : op.outputs)
        groups.exclude(static_cast<std::size_t>(t));
      continue;
    }
    if (op.aliases_input0 && !op.inputs.empty() && op.inputs[0] >= 0 && !op.outputs.empty())
      groups.join(static_cast<std::size_t>(op.inputs[0]), static_cast<std::size_t>(op.outputs[0]));
  }

  // In place: the output joins the group of an input that dies here (decided in operator
  // order, so a chain of elementwise operators keeps writing over one buffer).
  for (std::size_t o = 0; o < ops.size(); ++o) {
    const PlanOperator &op = ops[o];
    if (op.in_place_inputs == 0 || op.outputs.empty() || op.aliases_input0 || op.opaque)
      continue;
    const auto y = static_cast<std::size_t>(op.outputs[0]);
    if (!groups.planned(y) || groups.root(y) != y)
      continue;
    for (std::size_t k = 0; k < op.inputs.size() && k < 32; ++k) {
      if (!(op.in_place_inputs & (1u << k)) || op.inputs[k] < 0)
        continue;
      const auto x = static_cast<std::size_t>(op.inputs[k]);
      if (!groups.planned(x) || groups.last(x) != static_cast<int64_t>(o) || *tensors[x].bytes != *tensors[y].bytes ||
          *tensors[groups.root(x)].bytes != *tensors[y].bytes)
        continue; // (x's view group has one size: views keep the byte count)
      bool shared = false; // another operand read through the same memory
      for (std::size_t j = 0; j < op.inputs.size(); ++j)
        shared |= j != k && op.inputs[j] >= 0 && groups.root(static_cast<std::size_t>(op.inputs[j])) == groups.root(x);
      if (shared)
        continue;
      groups.join(x, y);
      ++plan.in_place;
      break;
    }
  }

  // Placement, greedy by size.
  struct Interval {
    std::size_t root;
    std::size_t bytes;
    int64_t first, last;
    std::size_t offset = 0;
  };
  std::vector<std::size_t> group_bytes(n, 0); // the largest member (views and in-place partners match)
  for (std::size_t t = 0; t < n; ++t)
    if (written[t] && groups.planned(t))
      group_bytes[groups.root(t)] = std::max(group_bytes[groups.root(t)], *tensors[t].bytes);
  std::vector<Interval> intervals;
  for (std::size_t t = 0; t < n; ++t)
    if (groups.root(t) == t && groups.planned(t) && group_bytes[t] > 0)
      intervals.push_back({t, aligned(group_bytes[t]), groups.first(t), groups.last(t)});
  std::stable_sort(intervals.begin(), intervals.end(), [](const Interval &a, const Interval &b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.first < b.first;
  });
  std::vector<const Interval *> placed;
  for (Interval &interval : intervals) {
    std::vector<std::pair<std::size_t, std::size_t>> busy; // [offset, end) of groups alive at the same time
    for (const Interval *other : placed)
      if (other->first <= interval.last && interval.first <= other->last)
        busy.emplace_back(other->offset, other->offset + other->bytes);
    std::sort(busy.begin(), busy.end());
    std::size_t offset = 0;
    for (const auto &[begin, end] : busy) {
      if (offset + interval.bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    interval.offset = offset;
    placed.push_back(&interval);
    plan.arena_bytes = std::max(plan.arena_bytes, offset + interval.bytes);
    plan.tensor_bytes += interval.bytes;
  }
  std::vector<int64_t> root_offset(n, -1);
  for (const Interval &interval : intervals)
    root_offset[interval.root] = static_cast<int64_t>(interval.offset);
  for (std::size_t t = 0; t < n; ++t)
    if (written[t] && groups.planned(t)) {
      plan.offset[t] = root_offset[groups.root(t)];
      plan.bytes[t] = *tensors[t].bytes;
      ++plan.planned;
    }
  return plan;
}

} // namespace tico::interp
