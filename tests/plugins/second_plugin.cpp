// A second well-formed test plugin. It adds a higher-priority lowering for the op the good
// plugin lowers (several lowerings per op are allowed when priorities differ) and a pass of
// its own, for discovery-order and lowering-order tests.
#include "tico/lowering/lowering.h"
#include "tico/plugin/plugin.h"

namespace {

// Leaves the graph unchanged: the tests only look at where it was registered from.
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

void registerAll(tico::Registrar &registrar) {
  registrar.addPass({"test.second-pass", "does nothing", {},
                     [](const tico::Options &) { return std::make_unique<KeepGraphPass>(); }});
  // The op is test-good's; declaring the same schema keeps this plugin loadable alone (every
  // op a lowering names must be known once plugins are loaded).
  registrar.addOpSchema("test_ns::good_op(Tensor self) -> Tensor");
  registrar.addLowering({tico::OpKey("test_ns", "good_op"), "identity, preferred", 10,
                         std::make_shared<IdentityLowering>()});
}

} // namespace

TICO_PLUGIN("test-second", "2.0", "MIT", registerAll)
