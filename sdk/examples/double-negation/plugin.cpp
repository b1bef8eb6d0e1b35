// Example vendor plugin: one pass, registered through the single C entry point.
//
// remove-double-negation rewrites neg(neg(x)) to x. It shows the whole pass contract: match
// precisely, rewrite through the Graph API (which keeps use lists and the signature valid),
// clean up what became dead, and report exactly whether anything changed.
#include <tico/ir/graph.h>
#include <tico/ops/torch_ops.h>
#include <tico/pass/pass.h>
#include <tico/plugin/plugin.h>

namespace {

// A typed op constant: compared by interned id, and a misspelling would not compile.
const tico::OpRef &kNeg = tico::ops::aten::neg_default;

class RemoveDoubleNegation : public tico::Pass {
public:
  bool run(tico::Graph &graph, tico::PassContext &) override {
    bool changed = false;
    for (const auto &node : graph.nodes()) {
      if (node->opId() != kNeg)
        continue;
      tico::Node *inner = node->input(0)->producer();
      if (inner == nullptr || inner->opId() != kNeg)
        continue;
      graph.replaceAllUsesWith(node->output(), inner->input(0));
      changed = true;
    }
    if (changed)
      graph.removeDeadNodes();
    return changed;
  }
};

void registerPlugin(tico::Registrar &registrar) {
  registrar.addPass(tico::PassSpec{
      "example.remove-double-negation",
      "rewrites neg(neg(x)) to x (example out-of-tree plugin)",
      {},
      [](const tico::Options &) { return std::make_unique<RemoveDoubleNegation>(); },
  });
}

} // namespace

TICO_PLUGIN("tico-example-double-negation", "1.0.0", "Apache-2.0", registerPlugin)
