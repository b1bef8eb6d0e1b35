// Legality: a strategy reuses tensors computed by an earlier call and skips the operators that
// produced them. That is only the monolith's computation when the reused values are plain,
// static-shaped data and nothing skipped had an effect. Anything we cannot prove is rejected
// with the reason; nothing unknown is treated as pure.
#include "incremental.h"

#include "tico/circle/query.h"

#include <map>

namespace tico::incremental {
namespace {

std::string tensorLabel(const CircleSubGraph &g, int32_t t) {
  return "'" + g.tensors[t].name + "' (tensor " + std::to_string(t) + ")";
}

} // namespace

std::optional<std::string> notRetainable(const CircleModel &model, const SupportAnalysis &analysis, int32_t t) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  const CircleTensor &tensor = g.tensors.at(t);
  if (tensor.is_variable)
    return "frontier tensor " + tensorLabel(g, t) + " is a variable (stateful) tensor";
  if (isDynamic(tensor))
    return "frontier tensor " + tensorLabel(g, t) + " has a dynamic shape; its size is unbounded";
  if (circleElementSize(tensor.type) == 0)
    return "frontier tensor " + tensorLabel(g, t) + " has type " + circle::EnumNameTensorType(tensor.type) +
           ", whose size does not follow from its shape";
  const int32_t p = analysis.producer.at(t);
  if (p < 0)
    return "frontier tensor " + tensorLabel(g, t) + " has no producer";
  const CircleOperator &op = g.operators[p];
  if (hasSideEffects(model, g, op))
    return "frontier tensor " + tensorLabel(g, t) + " is written by " + operatorName(model, op) + " (operator " +
           std::to_string(p) + "), which has effects";
  return std::nullopt;
}

std::optional<std::string> illegalReason(const CircleModel &model, const SupportAnalysis &analysis,
                                         const std::vector<uint8_t> &dirty, const std::vector<int32_t> &frontier,
                                         const std::vector<std::string> &state_writes) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  if (!state_writes.empty()) {
    std::string names;
    for (const auto &n : state_writes)
      names += (names.empty() ? "'" : ", '") + n + "'";
    return "the exported program mutates " + names +
           " (a buffer or input mutation); a strategy that skips operators would skip or reorder those writes, "
           "and no state contract exists";
  }
  for (std::size_t o = 0; o < g.operators.size(); ++o)
    if (!dirty[o] && hasSideEffects(model, g, g.operators[o]))
      return operatorName(model, g.operators[o]) + " (operator " + std::to_string(o) +
             ") has effects and would be skipped";
  for (int32_t t : frontier)
    if (auto why = notRetainable(model, analysis, t))
      return why;
  return std::nullopt;
}

std::optional<std::string> modelLevelReason(const CircleModel &model, const SupportAnalysis &analysis) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  for (std::size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].is_variable)
      return "tensor " + tensorLabel(g, static_cast<int32_t>(t)) + " is a variable (the model keeps state)";
  // The manifest and the signatures name values by tensor name: they must be unique.
  std::map<std::string, std::size_t> seen;
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    auto [it, inserted] = seen.emplace(g.tensors[t].name, t);
    if (!inserted)
      return "tensors " + std::to_string(it->second) + " and " + std::to_string(t) + " of subgraph 0 are both named '" +
             g.tensors[t].name + "'; the manifest names values by tensor name";
  }
  for (int32_t t : g.outputs) {
    if (t < 0 || static_cast<std::size_t>(t) >= g.tensors.size())
      return "a public output names no tensor";
    if (!analysis.tensor_support[t])
      return "public output " + tensorLabel(g, t) + " depends on no input";
    if (analysis.producer[t] < 0)
      return "public output " + tensorLabel(g, t) + " is a public input itself";
  }
  return std::nullopt;
}

} // namespace tico::incremental
