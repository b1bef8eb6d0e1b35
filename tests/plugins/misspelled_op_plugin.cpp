// A plugin whose op keys are misspelt: a lowering of `aten::rellu.default` (relu) and a rule
// table entry for `aten::add.Tensr`. Each would register silently and never fire; the loader
// must report both once all plugins are loaded (Registry::checkOpReferences).
#include "tico/lowering/lowering.h"
#include "tico/plugin/plugin.h"

namespace {

class IdentityLowering : public tico::OpLowering {
public:
  void lower(const tico::Node &node, tico::CircleEmitter &emit) const override {
    emit.alias(node.output(0), emit.tensor(node.input(0)));
  }
};

void registerAll(tico::Registrar &registrar) {
  registrar.addLowering({tico::OpKey("aten", "rellu", "default"), "identity", 0,
                         std::make_shared<IdentityLowering>()});
  registrar.addOpReference(tico::OpKey("aten", "add", "Tensr"), "a rewrite rule");
}

} // namespace

TICO_PLUGIN("test-misspelled-op", "1.0", "Apache-2.0", registerAll)
