// Small queries rewrites match with.
#pragma once

#include "tico/ir/graph.h"

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace tico::rewrite {

// Whether `node` applies one of `ops` (canonical "ns::name.overload" text).
bool isOp(const Node &node, std::span<const std::string_view> ops);
inline bool isOp(const Node &node, std::initializer_list<std::string_view> ops) {
  return isOp(node, std::span<const std::string_view>(ops.begin(), ops.size()));
}
// Whether `value` is produced by a node of one of `ops` (false for null and for inputs).
inline bool isOp(const Value *value, std::initializer_list<std::string_view> ops) {
  return value != nullptr && value->producer() != nullptr && isOp(*value->producer(), ops);
}

// The nodes in order, as a snapshot that stays valid while a loop erases the node it visits
// (or earlier ones) and inserts new nodes.
std::vector<Node *> snapshot(Graph &graph);

// Whether a value is read by anything (a node or a graph output).
inline bool isUsed(const Graph &graph, const Value *value) { return value->hasUsers() || graph.isGraphOutput(value); }

} // namespace tico::rewrite
