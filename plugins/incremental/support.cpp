// Support sets: which input groups each tensor and operator of subgraph 0 depends on, and
// what follows from them (canonical regions, constant-only operators, Dirty(C), Frontier(C)).
// Shapes are static in what we retain (legality.cpp), so a dependence through a shape is an
// ordinary data dependence here: SHAPE of an input carries the input's group.
#include "incremental.h"

#include "tico/circle/query.h"

#include <algorithm>
#include <bit>
#include <set>

namespace tico::incremental {

SupportAnalysis analyzeSupport(const CircleModel &model, const InputGroups &groups) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  SupportAnalysis a;
  a.tensor_support.assign(g.tensors.size(), 0);
  a.op_support.assign(g.operators.size(), 0);
  a.producer = tensorProducers(g);
  a.is_public_output.assign(g.tensors.size(), 0);
  for (int32_t t : g.outputs)
    if (t >= 0 && static_cast<std::size_t>(t) < g.tensors.size())
      a.is_public_output[t] = 1;
  a.consumers.assign(g.tensors.size(), {});
  auto readers = tensorConsumers(g);
  for (std::size_t t = 0; t < readers.size(); ++t)
    a.consumers[t] = readers[t];
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    a.tensor_support[g.inputs[i]] |= GroupSet{1} << groups.group_of_input[i];
  // Execution order is a topological order of a valid model.
  for (std::size_t o = 0; o < g.operators.size(); ++o) {
    GroupSet s = 0;
    for (int32_t t : g.operators[o].inputs)
      if (t >= 0 && static_cast<std::size_t>(t) < g.tensors.size())
        s |= a.tensor_support[t];
    a.op_support[o] = s;
    for (int32_t t : g.operators[o].outputs)
      if (t >= 0 && static_cast<std::size_t>(t) < g.tensors.size())
        a.tensor_support[t] |= s;
  }
  return a;
}

std::vector<GroupSet> regionSupports(const SupportAnalysis &analysis) {
  std::set<GroupSet> distinct;
  for (GroupSet s : analysis.op_support)
    if (s)
      distinct.insert(s);
  std::vector<GroupSet> out(distinct.begin(), distinct.end());
  std::stable_sort(out.begin(), out.end(),
                   [](GroupSet x, GroupSet y) { return std::popcount(x) < std::popcount(y); });
  return out;
}

std::vector<uint32_t> constantOnlyOperators(const SupportAnalysis &analysis) {
  std::vector<uint32_t> out;
  for (uint32_t o = 0; o < analysis.op_support.size(); ++o)
    if (!analysis.op_support[o])
      out.push_back(o);
  return out;
}

std::vector<uint8_t> dirtyOperators(const SupportAnalysis &analysis, GroupSet changed) {
  std::vector<uint8_t> dirty(analysis.op_support.size(), 0);
  for (std::size_t o = 0; o < dirty.size(); ++o)
    dirty[o] = (analysis.op_support[o] & changed) != 0;
  return dirty;
}

std::vector<int32_t> frontier(const SupportAnalysis &analysis, GroupSet changed) {
  std::vector<int32_t> out;
  for (std::size_t t = 0; t < analysis.tensor_support.size(); ++t) {
    const GroupSet s = analysis.tensor_support[t];
    if (!s || (s & changed) || analysis.producer[t] < 0)
      continue;
    bool needed = analysis.is_public_output[t] != 0;
    for (uint32_t c : analysis.consumers[t])
      needed |= (analysis.op_support[c] & changed) != 0;
    if (needed)
      out.push_back(static_cast<int32_t>(t));
  }
  return out;
}

} // namespace tico::incremental
