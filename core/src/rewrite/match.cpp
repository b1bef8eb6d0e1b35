#include "tico/rewrite/match.h"

namespace tico::rewrite {

bool isOp(const Node &node, std::span<const std::string_view> ops) {
  const std::string key = node.op().str();
  for (std::string_view op : ops)
    if (key == op)
      return true;
  return false;
}

std::vector<Node *> snapshot(Graph &graph) {
  std::vector<Node *> nodes;
  nodes.reserve(graph.numNodes());
  for (const auto &n : graph.nodes())
    nodes.push_back(n.get());
  return nodes;
}

} // namespace tico::rewrite
