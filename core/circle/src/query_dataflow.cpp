// Dataflow queries of tico/circle/query.h: producers, consumers, subgraph references.

#include "tico/circle/query.h"

#include <type_traits>

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

} // namespace tico
