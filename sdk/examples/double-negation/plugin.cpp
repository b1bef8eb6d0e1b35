// Example vendor plugin: one pass, registered through the single C entry point.
//
// remove-double-negation rewrites neg(neg(x)) to x. It is written with the SDK's rewrite
// toolkit: a pattern rooted at neg says what it matches and what replaces it; the driver finds
// the nodes, visits again what a rewrite affects, erases the inner neg once nothing reads it,
// and reports whether anything changed (which the pass manager's fixed-point strategies need).
#include <tico/ir/graph.h>
#include <tico/ops/torch_ops.h>
#include <tico/plugin/plugin.h>
#include <tico/rewrite/driver.h>
#include <tico/rewrite/pattern.h>

namespace {

// A typed op constant: compared by interned id, and a misspelling would not compile.
const tico::OpRef &kNeg = tico::ops::aten::neg_default;

class DoubleNegation final : public tico::rewrite::Pattern {
public:
  std::vector<tico::OpKey> roots() const override { return {kNeg.key()}; }

  bool matchAndRewrite(tico::Node &outer, tico::rewrite::Rewriter &rewriter) override {
    tico::Node *inner = outer.input(0)->producer();
    if (inner == nullptr || inner->opId() != kNeg)
      return false;
    rewriter.replaceNode(&outer, inner->input(0));
    return true;
  }
};

void registerPlugin(tico::Registrar &registrar) {
  tico::rewrite::DriverConfig config;
  config.erase_dead = true; // the inner neg, once the outer one no longer reads it
  // patternPassSpec declares the patterns' roots, so the host checks them when it loads plugins.
  registrar.addPass(tico::rewrite::patternPassSpec(
      "example.remove-double-negation", "rewrites neg(neg(x)) to x (example out-of-tree plugin)", {},
      [](const tico::Options &) {
        std::vector<std::unique_ptr<tico::rewrite::Pattern>> patterns;
        patterns.push_back(std::make_unique<DoubleNegation>());
        return patterns;
      },
      config));
}

} // namespace

TICO_PLUGIN("tico-example-double-negation", "1.0.0", "Apache-2.0", registerPlugin)
