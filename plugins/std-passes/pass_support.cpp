#include "pass_support.h"

#include "tico/support/error.h"

namespace tico::passes {

bool isOp(const Node &node, std::initializer_list<std::string_view> ops) {
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

void replaceAndErase(Graph &graph, Node *node, Value *replacement) {
  graph.replaceAllUsesWith(node->output(), replacement);
  graph.eraseNode(node);
}

bool eraseIfDead(Graph &graph, Node *node) {
  for (const Value *out : node->outputs())
    if (out->hasUsers() || graph.isGraphOutput(out))
      return false;
  graph.eraseNode(node);
  return true;
}

std::optional<int64_t> staticInt(const Argument &arg) {
  if (arg.isInt())
    return arg.asInt();
  return std::nullopt;
}

} // namespace tico::passes
