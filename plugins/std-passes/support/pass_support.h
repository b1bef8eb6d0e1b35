// Helpers shared by the passes of the std-passes and decompose plugins.
#pragma once

#include "tico/ir/graph.h"
#include "tico/pass/pass.h"
#include "tico/plugin/registry.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/match.h"
#include "tico/rewrite/pattern.h"
#include "tico/support/error.h"

#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace tico::passes {

// Matching helpers and the node builder come from the SDK's rewrite toolkit.
using rewrite::A;
using rewrite::Builder;
using rewrite::Ints;
using rewrite::isOp;
using rewrite::kw;
using rewrite::snapshot;

// Makes every user of `node`'s only output use `replacement`, then erases `node`.
void replaceAndErase(Graph &graph, Node *node, Value *replacement);

// Erases `node` when its outputs are unused and not graph outputs; returns whether it did.
bool eraseIfDead(Graph &graph, Node *node);

// Erases `value`'s producer if it became dead, then the producers of its arguments that
// became dead in turn (only along the chain that fed `value`). For cleaning up the nodes a
// rewrite bypassed, without touching unrelated dead code.
void eraseDeadChain(Graph &graph, Value *value);

// The argument as an int when it is a static int, or nullopt.
std::optional<int64_t> staticInt(const Argument &arg);

// The number `arg` holds when it is a number, or nullopt.
std::optional<double> numberOf(const Argument &arg);

// Exactly one node slot reads `value` and it is not a graph output.
bool hasSingleUse(const Graph &graph, const Value *value);

// The node producing `value` when it is one of `ops`, else null.
Node *producerIf(const Value *value, std::span<const std::string_view> ops);
inline Node *producerIf(const Value *value, std::initializer_list<std::string_view> ops) {
  return producerIf(value, std::span<const std::string_view>(ops.begin(), ops.size()));
}

// The node after `node` in graph order (null at the end).
Node *nodeAfter(const Graph &graph, const Node *node);

// Makes every user of `from` except `reader` (a node just created to read `from`) use `to`.
void replaceUsesExceptReader(Graph &graph, Value *from, Value *to, Node *reader);

// Whether a Tensor argument holds a Value (not a number, not None).
inline bool isTensorValue(const Argument &arg) { return arg.isValue() && arg.asValue()->isTensor(); }

// A PassSpec for a pass made of one rewrite pattern rooted at `ops`, applied in one sweep in
// graph order (tico/rewrite/driver.h): the order of the "for each node" loop such a pass used to
// be, on which the output bytes depend. The pipeline's fixed-point stages rerun it for what a
// rewrite exposes.
PassSpec sweepPass(std::string name, std::string summary, std::span<const std::string_view> ops,
                   rewrite::RewriteFn fn);
inline PassSpec sweepPass(std::string name, std::string summary, std::initializer_list<std::string_view> ops,
                          rewrite::RewriteFn fn) {
  return sweepPass(std::move(name), std::move(summary), std::span<const std::string_view>(ops.begin(), ops.size()),
                   std::move(fn));
}

// Convenience for registration: a PassSpec for a pass type without options.
template <typename P> PassSpec simplePass(std::string name, std::string summary) {
  PassSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.create = [](const Options &) -> std::unique_ptr<Pass> { return std::make_unique<P>(); };
  return spec;
}

} // namespace tico::passes
