// The greedy driver that applies rewrite patterns to a graph, and the pass built on it.
//
//   registrar.addPass({"acme.fold-double-neg", "-(-x) -> x", {},
//                      [](const tico::Options &) {
//                        return tico::rewrite::patternPass(makeDoubleNegationPatterns());
//                      }});
//
// Two traversals:
//   * Worklist (the default): every node is queued in graph order; a node is offered to the
//     patterns rooted at its op, in the order the patterns were given, until one rewrites it.
//     After a rewrite the driver queues the nodes it created, the nodes whose inputs changed
//     (users of replaced values), the producers of erased nodes' inputs, and the rewritten node
//     itself when it survives; it stops when the queue is empty. The queue order depends only on
//     the graph, so the result is deterministic.
//   * Sweep: one walk over the nodes present at the start, in graph order, visiting none that
//     a rewrite created. This is exactly a hand-written "for each node of op X, try rewrite"
//     loop; passes whose output depends on that order use it, and rely on the pass manager's
//     fixed-point strategies (restart, until_no_change) for what a rewrite exposes.
//
// Either way the result says whether anything changed, which those strategies depend on.
#pragma once

#include "tico/pass/pass.h"
#include "tico/rewrite/pattern.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tico::rewrite {

enum class Traversal { Worklist, Sweep };

struct DriverConfig {
  Traversal traversal = Traversal::Worklist;
  // Erase the nodes a rewrite left dead: the producers of the inputs of the nodes it erased or
  // changed, along the chain, when no output of theirs is used any more. Dead code the pass did
  // not create is left alone.
  bool erase_dead = false;
  // Rewrites one run may apply before it stops with an error (a pattern that always reports a
  // change would otherwise loop forever in worklist mode).
  std::size_t max_rewrites = 1000000;
};

// Applies `patterns` to `graph`; `types` (the registry, may be null) types the nodes that
// rewriter.builder() creates. Returns whether any pattern changed the graph.
bool applyPatterns(Graph &graph, const Registry *types, const std::vector<Pattern *> &patterns,
                   const DriverConfig &config = {});

// A pass that applies its patterns with the registry of the pass context.
class PatternPass : public Pass {
public:
  PatternPass(std::vector<std::unique_ptr<Pattern>> patterns, DriverConfig config = {});
  bool run(Graph &graph, PassContext &context) override;

private:
  std::vector<std::unique_ptr<Pattern>> patterns_;
  DriverConfig config_;
};

// Convenience for PassSpec::create.
std::unique_ptr<Pass> patternPass(std::vector<std::unique_ptr<Pattern>> patterns, DriverConfig config = {});

// The PassSpec of a pass without options made of one function pattern rooted at `roots`.
PassSpec patternPassSpec(std::string name, std::string summary, std::vector<OpKey> roots, RewriteFn fn,
                         DriverConfig config = {});

} // namespace tico::rewrite
