// Planning: which change sets get a strategy. Candidates are the non-empty proper subsets of the
// groups; equal dirty sets are one candidate (serving the union of their change sets); illegal
// ones and those that avoid no work are rejected with the reason; the rest are picked greedily
// by avoided MACs per marginal retained byte (frontiers overlap, so a tensor already retained
// for a chosen strategy costs nothing more) within max_strategies and the retained-byte budget.
// Dominance pruning (the callable-subset rule) runs on the packaged strategies.
#include "incremental.h"

#include <algorithm>
#include <map>
#include <set>

namespace tico::incremental {
namespace {

std::string bytesText(uint64_t b) { return std::to_string(b) + " bytes"; }

} // namespace

Plan planStrategies(const CircleModel &model, const InputGroups &groups, const SupportAnalysis &analysis,
                    const PlanOptions &options) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  Plan plan;
  plan.monolith_macs = totalMacs(model);
  const GroupSet all = groups.all();

  if (auto why = modelLevelReason(model, analysis)) {
    for (GroupSet c = 1; c < all; ++c)
      plan.rejected.push_back({c, *why});
    return plan;
  }

  std::size_t live_ops = 0;
  for (GroupSet s : analysis.op_support)
    live_ops += s != 0;

  // Merge change sets with equal dirty sets (in enumeration order, keyed by the dirty set).
  std::map<std::vector<uint8_t>, GroupSet> merged;
  std::vector<std::vector<uint8_t>> order;
  for (GroupSet c = 1; c < all; ++c) {
    auto dirty = dirtyOperators(analysis, c);
    auto [it, inserted] = merged.emplace(dirty, c);
    if (inserted)
      order.push_back(dirty);
    else
      it->second |= c;
  }

  std::vector<Candidate> legal;
  for (const auto &dirty : order) {
    const GroupSet changed = merged[dirty];
    std::size_t dirty_count = 0;
    for (uint8_t d : dirty)
      dirty_count += d;
    if (dirty_count == 0) {
      plan.rejected.push_back({changed, "no operator depends on the changed inputs"});
      continue;
    }
    if (changed == all || dirty_count == live_ops) {
      plan.rejected.push_back({changed, "recomputes every operator that depends on an input (the monolith does)"});
      continue;
    }
    Candidate c;
    c.changed = changed;
    c.dirty = dirty;
    c.frontier = frontier(analysis, changed);
    for (int32_t t : c.frontier)
      c.frontier_bytes += tensorBytes(g.tensors[t]);
    c.macs = totalMacs(model, dirty);
    if (auto why = illegalReason(model, analysis, dirty, c.frontier, options.state_writes)) {
      plan.rejected.push_back({changed, *why});
      continue;
    }
    if (c.macs >= plan.monolith_macs) {
      plan.rejected.push_back({changed, "avoids no work (" + std::to_string(c.macs) + " of " +
                                            std::to_string(plan.monolith_macs) + " MACs)"});
      continue;
    }
    if (options.budget && c.frontier_bytes > *options.budget) {
      plan.rejected.push_back({changed, "retains " + bytesText(c.frontier_bytes) + ", over the budget of " +
                                            bytesText(*options.budget)});
      continue;
    }
    legal.push_back(std::move(c));
  }

  std::set<int32_t> retained;
  std::vector<uint8_t> taken(legal.size(), 0);
  // Bytes a candidate would add to what the chosen strategies already retain.
  auto marginalBytes = [&](const Candidate &c) {
    uint64_t bytes = 0;
    for (int32_t t : c.frontier)
      if (!retained.count(t))
        bytes += tensorBytes(g.tensors[t]);
    return bytes;
  };
  while (true) {
    if (options.max_strategies >= 0 && plan.chosen.size() >= static_cast<std::size_t>(options.max_strategies))
      break;
    int best = -1;
    double best_score = -1;
    for (std::size_t i = 0; i < legal.size(); ++i) {
      if (taken[i])
        continue;
      const uint64_t marginal = marginalBytes(legal[i]);
      if (options.budget && plan.retained_bytes + marginal > *options.budget)
        continue;
      const double score =
          static_cast<double>(plan.monolith_macs - legal[i].macs) / (1.0 + static_cast<double>(marginal));
      if (score > best_score) { // strict: ties keep the earlier change set
        best_score = score;
        best = static_cast<int>(i);
      }
    }
    if (best < 0)
      break;
    taken[best] = 1;
    for (int32_t t : legal[best].frontier)
      if (retained.insert(t).second)
        plan.retained_bytes += tensorBytes(g.tensors[t]);
    plan.chosen.push_back(legal[best]);
  }
  for (std::size_t i = 0; i < legal.size(); ++i) {
    if (taken[i])
      continue;
    if (options.budget && plan.retained_bytes + marginalBytes(legal[i]) > *options.budget)
      plan.rejected.push_back({legal[i].changed, "retaining its frontier too would exceed the budget of " +
                                                     bytesText(*options.budget)});
    else
      plan.rejected.push_back({legal[i].changed, "max_strategies (" + std::to_string(options.max_strategies) +
                                                     ") reached by strategies that avoid more work per byte"});
  }
  std::sort(plan.chosen.begin(), plan.chosen.end(),
            [](const Candidate &a, const Candidate &b) { return a.changed < b.changed; });
  std::stable_sort(plan.rejected.begin(), plan.rejected.end(),
                   [](const Rejection &a, const Rejection &b) { return a.changed < b.changed; });
  plan.retained.assign(retained.begin(), retained.end());
  return plan;
}

bool dominates(const StrategySummary &a, const StrategySummary &b) {
  if (b.monolith)
    return false;
  if ((b.changed & ~a.changed) != 0) // a must serve every change set b serves
    return false;
  if (a.macs > b.macs)
    return false;
  auto subset = [](const std::vector<std::string> &x, const std::vector<std::string> &y) {
    return std::includes(y.begin(), y.end(), x.begin(), x.end());
  };
  return subset(a.reads_retained, b.reads_retained) && subset(b.writes_retained, a.writes_retained) &&
         subset(a.callables, b.callables);
}

std::vector<std::size_t> dominatedStrategies(const std::vector<StrategySummary> &strategies) {
  std::vector<std::size_t> out;
  for (std::size_t b = 0; b < strategies.size(); ++b) {
    for (std::size_t a = 0; a < strategies.size(); ++a) {
      if (a == b || !dominates(strategies[a], strategies[b]))
        continue;
      // Mutual domination means equal in every respect: keep the earlier one.
      if (dominates(strategies[b], strategies[a]) && a > b)
        continue;
      if (std::find(out.begin(), out.end(), a) != out.end())
        continue; // a itself is pruned; its dominator (if any) is checked on its own
      out.push_back(b);
      break;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace tico::incremental
