// A plugin whose rewrite pattern is rooted at a misspelt op, `aten::sigmod.default` (sigmoid).
// The pattern would never be offered a node; because patternPassSpec declares the roots of the
// pass's patterns, the loader reports the key once all plugins are loaded.
#include "tico/plugin/plugin.h"
#include "tico/rewrite/driver.h"

namespace {

class SigmoidOfSigmoid final : public tico::rewrite::Pattern {
public:
  std::vector<tico::OpKey> roots() const override { return {tico::OpKey("aten", "sigmod", "default")}; }
  bool matchAndRewrite(tico::Node &, tico::rewrite::Rewriter &) override { return false; }
};

void registerAll(tico::Registrar &registrar) {
  registrar.addPass(tico::rewrite::patternPassSpec(
      "test.misspelled-pattern", "a pattern rooted at a misspelt op", {}, [](const tico::Options &) {
        std::vector<std::unique_ptr<tico::rewrite::Pattern>> patterns;
        patterns.push_back(std::make_unique<SigmoidOfSigmoid>());
        return patterns;
      }));
}

} // namespace

TICO_PLUGIN("test-misspelled-pattern", "1.0", "Apache-2.0", registerAll)
