// Adding and removing subgraphs; the references of control-flow operators and signatures follow.

#include "edit_detail.h"

#include "tico/support/error.h"

namespace tico {

uint32_t addSubgraph(CircleModel &model, CircleSubGraph subgraph) {
  model.subgraphs.push_back(std::move(subgraph));
  return static_cast<uint32_t>(model.subgraphs.size() - 1);
}

IndexMap removeSubgraphs(CircleModel &model, const std::vector<uint32_t> &subgraphs) {
  const auto removed = circle_edit::markIndices(model.subgraphs.size(), subgraphs, "subgraph");
  auto isRemoved = [&](int64_t s) { return s >= 0 && static_cast<std::size_t>(s) < removed.size() && removed[s]; };

  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    if (removed[s])
      continue;
    const auto &ops = model.subgraphs[s].operators;
    for (std::size_t o = 0; o < ops.size(); ++o)
      for (int64_t callee : calledSubgraphs(ops[o]))
        if (isRemoved(callee))
          throw Error("cannot remove subgraph " + std::to_string(callee) + ": operator " + std::to_string(o) +
                      " of subgraph " + std::to_string(s) + " calls it");
  }

  const IndexMap map = circle_edit::compactionMap(removed);
  std::vector<CircleSubGraph> kept;
  kept.reserve(model.subgraphs.size());
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s)
    if (!removed[s])
      kept.push_back(std::move(model.subgraphs[s]));
  model.subgraphs = std::move(kept);
  for (auto &sg : model.subgraphs)
    for (auto &op : sg.operators)
      forEachSubgraphReference(op, [&](int64_t &index) {
        if (index >= 0 && static_cast<std::size_t>(index) < map.size())
          index = map[index];
      });

  std::vector<CircleSignature> signatures;
  for (auto &signature : model.signatures) {
    if (signature.subgraph_index < map.size()) {
      if (map[signature.subgraph_index] < 0)
        continue;
      signature.subgraph_index = static_cast<uint32_t>(map[signature.subgraph_index]);
    }
    signatures.push_back(std::move(signature));
  }
  model.signatures = std::move(signatures);
  return map;
}

} // namespace tico
