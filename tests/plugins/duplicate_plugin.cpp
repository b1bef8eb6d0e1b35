// A plugin that takes names the good plugin already registered: a pass, a lowering at the same
// priority and a different schema for the same op, next to one entry of its own. Loaded after
// the good plugin it must fail as a whole, listing all three conflicts.
#include "tico/lowering/lowering.h"
#include "tico/plugin/plugin.h"

namespace {

class KeepGraphPass : public tico::Pass {
public:
  bool run(tico::Graph &, tico::PassContext &) override { return false; }
};

class IdentityLowering : public tico::OpLowering {
public:
  void lower(const tico::Node &node, tico::CircleEmitter &emit) const override {
    emit.alias(node.output(0), emit.tensor(node.input(0)));
  }
};

tico::PassSpec keepGraphSpec(const char *name) {
  return {name, "duplicate test pass", {},
          [](const tico::Options &) { return std::make_unique<KeepGraphPass>(); }};
}

void registerAll(tico::Registrar &registrar) {
  registrar.addPass(keepGraphSpec("test.duplicate-only"));
  registrar.addPass(keepGraphSpec("test.rename-graph"));
  registrar.addLowering({tico::OpKey("test_ns", "good_op"), "clashing identity", 0,
                         std::make_shared<IdentityLowering>()});
  registrar.addOpSchema("test_ns::good_op(Tensor self, int n) -> Tensor");
}

} // namespace

TICO_PLUGIN("test-duplicate", "1.0", "Apache-2.0", registerAll)
