// A plugin that registers the same pass name twice (a plugin bug the host must report).
#include "tico/plugin/plugin.h"

namespace {

class KeepGraphPass : public tico::Pass {
public:
  bool run(tico::Graph &, tico::PassContext &) override { return false; }
};

tico::PassSpec keepGraphSpec() {
  return {"test.twice", "registered twice", {},
          [](const tico::Options &) { return std::make_unique<KeepGraphPass>(); }};
}

void registerAll(tico::Registrar &registrar) {
  registrar.addPass(keepGraphSpec());
  registrar.addPass(keepGraphSpec());
}

} // namespace

TICO_PLUGIN("test-twice", "1.0", "Apache-2.0", registerAll)
