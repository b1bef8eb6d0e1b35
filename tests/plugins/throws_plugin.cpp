// A plugin whose registration throws after it has already added a pass: the host must report
// the exception and keep none of the plugin's entries.
#include "tico/plugin/plugin.h"

#include <stdexcept>

namespace {

class KeepGraphPass : public tico::Pass {
public:
  bool run(tico::Graph &, tico::PassContext &) override { return false; }
};

void registerAll(tico::Registrar &registrar) {
  registrar.addPass({"test.throws-partial", "added before the failure", {},
                     [](const tico::Options &) { return std::make_unique<KeepGraphPass>(); }});
  throw std::runtime_error("test-throws refuses to register");
}

} // namespace

TICO_PLUGIN("test-throws", "1.0", "Apache-2.0", registerAll)
