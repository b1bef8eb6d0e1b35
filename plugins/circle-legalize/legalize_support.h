// Helpers shared by the circle-legalize passes (the node builder, matching and zero-copy
// constant views are the SDK's, tico/rewrite/).
#pragma once

#include "tico/ir/graph.h"
#include "tico/ir/shape_utils.h"
#include "tico/pass/pass.h"
#include "tico/plugin/registry.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/driver.h"
#include "tico/rewrite/match.h"
#include "tico/support/error.h"

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico::legalize {

// Matching helpers, the node builder and constant views come from the SDK's rewrite toolkit.
using rewrite::Builder;
using rewrite::inversePermutation;
using rewrite::isOp;
using rewrite::isUsed;
using rewrite::permutedView;
using rewrite::permuteShape;
using rewrite::slicedView;
using rewrite::snapshot;
using rewrite::squeezedView;
using rewrite::unsqueezedView;

// An int list argument (or one int broadcast) of `n` elements; nullopt when symbolic or of
// another length.
std::optional<std::vector<int64_t>> staticInts(const Argument &arg, std::size_t n);

// Replaces every use of `from` with `to` and erases `node` when it became dead.
void replaceAndErase(Graph &graph, Node *node, Value *from, Value *to);
void replaceAndErase(rewrite::Rewriter &rewriter, Node *node, Value *from, Value *to);

// Applies one pattern in a sweep and, when it changed anything, removes the dead nodes.
class FusionPass final : public Pass {
public:
  explicit FusionPass(std::unique_ptr<rewrite::Pattern> pattern) : pattern_(std::move(pattern)) {}
  bool run(Graph &graph, PassContext &context) override;

private:
  std::unique_ptr<rewrite::Pattern> pattern_;
};

// A PassSpec for a pass made of the one pattern P, applied in one sweep in graph order
// (tico/rewrite/driver.h): the order of the "for each node" loop these passes used to be, on
// which the output bytes depend. P's roots are declared for the load-time op check.
template <typename P> PassSpec sweepPass(std::string name, std::string summary) {
  return rewrite::patternPassSpec(
      std::move(name), std::move(summary), {},
      [](const Options &) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(std::make_unique<P>());
        return patterns;
      },
      {rewrite::Traversal::Sweep});
}

// The same for a pass made of function patterns, one per set of root ops (given as text).
struct SweepRule {
  std::vector<std::string_view> roots;
  rewrite::RewriteFn rewrite;
};
PassSpec sweepPass(std::string name, std::string summary, std::vector<SweepRule> rules);

// Registers a fusion made of the one pattern P: a fusion only redirects the users of the
// matched subgraph to the fused node, and when anything was fused the dead code is removed once
// at the end (so the replaced nodes stay in place while the sweep walks past them). Not a
// patternPassSpec (the pass does more than apply its pattern), so P's roots are declared here
// for the load-time op check.
template <typename P> void addFusionPass(Registrar &r, std::string name, std::string summary) {
  for (const OpKey &root : P().roots())
    r.addOpReference(root, "a pattern of pass '" + name + "'");
  PassSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.create = [](const Options &) -> std::unique_ptr<Pass> { return std::make_unique<FusionPass>(std::make_unique<P>()); };
  r.addPass(std::move(spec));
}

} // namespace tico::legalize
