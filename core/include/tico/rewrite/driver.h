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
#include <functional>
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

// Makes the patterns of a pass from the options of its manifest entry.
using PatternFactory = std::function<std::vector<std::unique_ptr<Pattern>>(const Options &options)>;

// A pass that applies its patterns with the registry of the pass context.
class PatternPass : public Pass {
public:
  // The same pattern objects serve every run.
  PatternPass(std::vector<std::unique_ptr<Pattern>> patterns, DriverConfig config = {});
  // Fresh patterns from `make(options)` for every run, so a pattern may keep state for one run
  // (a cache of the nodes it created, say) and never sees stale pointers from an earlier one.
  PatternPass(PatternFactory make, Options options, DriverConfig config = {});
  bool run(Graph &graph, PassContext &context) override;

private:
  std::vector<std::unique_ptr<Pattern>> patterns_;
  PatternFactory make_;
  Options options_;
  DriverConfig config_;
};

// Convenience for PassSpec::create.
std::unique_ptr<Pass> patternPass(std::vector<std::unique_ptr<Pattern>> patterns, DriverConfig config = {});

// The root ops of `patterns`, each once, in first-seen order.
std::vector<OpKey> rootsOf(const std::vector<std::unique_ptr<Pattern>> &patterns);

// What patternPassSpec puts in PassSpec::create: it makes the pass for the options of a
// manifest entry, and it knows the roots of the pass's patterns (made once, with the default
// options, to ask), which Registry::addPass records as op references. So a misspelt root is a
// load error (Registry::checkOpReferences) instead of a pattern that never fires.
class PatternPassFactory {
public:
  PatternPassFactory(std::string pass_name, const std::vector<OptionSpec> &options, PatternFactory make,
                     DriverConfig config);
  // Throws tico::Error naming the root when the patterns for `options` have a root the default
  // options did not give (the load-time check never saw it: roots must not depend on options).
  std::unique_ptr<Pass> operator()(const Options &options) const;
  const std::vector<OpKey> &roots() const { return roots_; }
  // The factory behind `spec.create` when patternPassSpec made it, else null.
  static const PatternPassFactory *of(const PassSpec &spec);

private:
  std::string pass_name_;
  PatternFactory make_;
  DriverConfig config_;
  std::vector<OpKey> roots_;
};

// The PassSpec of a pass without options made of one function pattern rooted at `roots`. The
// roots are checked at load.
PassSpec patternPassSpec(std::string name, std::string summary, std::vector<OpKey> roots, RewriteFn fn,
                         DriverConfig config = {});

// The PassSpec of a pass made of the patterns `make` returns for the entry's options; each run
// gets fresh patterns (PatternPass above), and the roots are checked at load (PatternPassFactory).
PassSpec patternPassSpec(std::string name, std::string summary, std::vector<OptionSpec> options, PatternFactory make,
                         DriverConfig config = {});

} // namespace tico::rewrite
