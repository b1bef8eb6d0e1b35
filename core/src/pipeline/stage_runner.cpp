// One stage of any kind through the one pass manager: the stage's entries are looked up in the
// registry, created with their resolved options and scheduled with the stage's strategy.
// Quantizers are adapted to the pass interface, so quantize stages get the same strategies,
// guard, instrumentation and error attribution as the others.
#include "tico/pipeline/driver.h"

#include "pipeline/manifest_syntax.h"
#include "tico/circle/circle_pass.h"
#include "tico/quant/quantizer.h"
#include "tico/support/error.h"

namespace tico {

namespace {

class QuantizerPass final : public Pass {
public:
  explicit QuantizerPass(std::unique_ptr<Quantizer> quantizer) : quantizer_(std::move(quantizer)) {}
  bool run(Graph &graph, PassContext &context) override { return quantizer_->run(graph, context); }

private:
  std::unique_ptr<Quantizer> quantizer_;
};

// Looks an entry up with `find` and creates it with its options checked against its spec.
template <class Entry, class Find>
auto create(const PassInvocation &invocation, const char *noun, Find find, const std::vector<std::string> &known) {
  const Entry *entry = find(invocation.name);
  if (!entry)
    throw LocatedError(invocation.where, std::string("unknown ") + noun + " '" + invocation.name + "'" +
                                             didYouMean(invocation.name, known));
  return entry->spec.create(
      Options::resolve(std::string(noun) + " '" + invocation.name + "'", entry->spec.options, invocation.options));
}

std::unique_ptr<Pass> createAtenPass(const Registry &registry, StageKind kind, const PassInvocation &invocation) {
  if (kind == StageKind::Quantize)
    return std::make_unique<QuantizerPass>(create<Registered<QuantizerSpec>>(
        invocation, "quantizer", [&](const std::string &n) { return registry.findQuantizer(n); },
        registry.quantizerNames()));
  return create<Registered<PassSpec>>(
      invocation, "pass", [&](const std::string &n) { return registry.findPass(n); }, registry.passNames());
}

std::unique_ptr<CirclePass> createCirclePass(const Registry &registry, const PassInvocation &invocation) {
  return create<Registered<CirclePassSpec>>(
      invocation, "Circle pass", [&](const std::string &n) { return registry.findCirclePass(n); },
      registry.circlePassNames());
}

template <class IR> BasicPassManager<IR> managerFor(const Stage &stage, bool verify_each,
                                                    BasicPassInstrumentation<IR> *instrumentation) {
  BasicPassManager<IR> manager(stage.strategy);
  manager.setVerifyEach(verify_each);
  if (instrumentation)
    manager.addInstrumentation(instrumentation);
  return manager;
}

} // namespace

bool runStage(const Registry &registry, const Stage &stage, Graph &graph, bool verify_each,
              PassInstrumentation *instrumentation) {
  if (!isAtenStage(stage.kind))
    throw LocatedError(stage.where, "stage '" + stage.name + "' (kind " + manifest::kindText(stage.kind) +
                                        ") does not run on the ATen-level graph");
  PassManager manager = managerFor<Graph>(stage, verify_each, instrumentation);
  if (stage.kind == StageKind::Quantize)
    manager.setPassNoun("quantizer");
  for (const auto &invocation : stage.passes)
    manager.add(invocation.name, createAtenPass(registry, stage.kind, invocation));
  PassContext context(registry);
  return manager.run(graph, context);
}

bool runStage(const Registry &registry, const Stage &stage, CircleModel &model, bool verify_each,
              CirclePassInstrumentation *instrumentation, const std::function<void(const CircleModel &)> &verifier) {
  if (stage.kind != StageKind::Circle)
    throw LocatedError(stage.where, "stage '" + stage.name + "' (kind " + manifest::kindText(stage.kind) +
                                        ") does not run on a Circle model");
  CirclePassManager manager = managerFor<CircleModel>(stage, verify_each, instrumentation);
  if (verifier)
    manager.setVerifier(verifier);
  for (const auto &invocation : stage.passes)
    manager.add(invocation.name, createCirclePass(registry, invocation));
  PassContext context(registry);
  return manager.run(model, context);
}

} // namespace tico
