// Helpers shared by the passes of this plugin.
#pragma once

#include "tico/ir/graph.h"
#include "tico/pass/pass.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace tico::passes {

// Whether `node` is one of `ops` (canonical "ns::name.overload" text).
bool isOp(const Node &node, std::initializer_list<std::string_view> ops);

// The nodes in order, as a snapshot: passes may erase the node they visit (or earlier ones)
// and insert new nodes while walking it.
std::vector<Node *> snapshot(Graph &graph);

// Makes every user of `node`'s only output use `replacement`, then erases `node`.
void replaceAndErase(Graph &graph, Node *node, Value *replacement);

// Erases `node` when its outputs are unused and not graph outputs; returns whether it did.
bool eraseIfDead(Graph &graph, Node *node);

// The only argument of an int or int-list kind that is static, or nullopt.
std::optional<int64_t> staticInt(const Argument &arg);

// Convenience for registration: a PassSpec for a pass type without options.
template <typename P> PassSpec simplePass(std::string name, std::string summary) {
  PassSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.create = [](const Options &) -> std::unique_ptr<Pass> { return std::make_unique<P>(); };
  return spec;
}

} // namespace tico::passes
