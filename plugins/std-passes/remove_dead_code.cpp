// Not a pattern: a whole-graph liveness sweep (Graph::removeDeadNodes / removeUnusedConstants), rooted at no op.
// remove-dead-code: erases nodes whose results nobody uses (graph outputs count as uses) and
// free constants left without users by earlier rewrites.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

class RemoveDeadCodePass final : public Pass {
public:
  explicit RemoveDeadCodePass(bool constants) : constants_(constants) {}

  bool run(Graph &graph, PassContext &) override {
    std::size_t removed = graph.removeDeadNodes();
    if (constants_)
      removed += graph.removeUnusedConstants();
    return removed > 0;
  }

private:
  bool constants_;
};

} // namespace

void registerRemoveDeadCode(Registrar &r) {
  PassSpec spec;
  spec.name = "remove-dead-code";
  spec.summary = "Erase nodes whose results are unused, and unused free constants";
  spec.options = {OptionSpec{"remove_unused_constants", OptionType::Bool, true,
                             "also drop constants created by passes that nothing uses any more"}};
  spec.create = [](const Options &options) -> std::unique_ptr<Pass> {
    return std::make_unique<RemoveDeadCodePass>(options.getBool("remove_unused_constants"));
  };
  r.addPass(std::move(spec));
}

} // namespace tico::passes
