// One stage of any kind through the one pass manager: the stage's entries are looked up in the
// registry, created with their resolved options and scheduled with the stage's strategy.
// Quantizers are adapted to the pass interface, so quantize stages get the same strategies,
// guard, instrumentation and error attribution as the others.
#include "tico/pipeline/driver.h"

#include "pipeline/manifest_syntax.h"
#include "quant/calibration_runner.h"
#include "tico/circle/circle_pass.h"
#include "tico/quant/quantizer.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

namespace tico {

namespace {

// A quantizer as a pass: prepare, calibrate when the plan asks for data, convert.
class QuantizerPass final : public Pass {
public:
  QuantizerPass(std::string name, std::unique_ptr<Quantizer> quantizer, const CalibrationSetup *calibration,
                std::vector<QuantizerMetric> *metrics)
      : name_(std::move(name)), quantizer_(std::move(quantizer)), calibration_(calibration), metrics_(metrics) {}

  bool run(Graph &graph, PassContext &context) override {
    QuantizeContext quantize_context(context.registry(), 0);
    CalibrationPlan plan;
    quantizer_->prepare(graph, plan, quantize_context);
    if (!plan.empty())
      calibrate(graph, context.registry(), plan, quantize_context);
    const bool changed = quantizer_->convert(graph, quantize_context);
    for (const QuantizerMetric &m : quantize_context.metrics())
      TICO_DEBUG << "quantizer '" << name_ << "': " << m.subject << " " << m.metric << " = " << m.value;
    if (metrics_)
      metrics_->insert(metrics_->end(), quantize_context.metrics().begin(), quantize_context.metrics().end());
    return changed;
  }

private:
  void calibrate(const Graph &graph, const Registry &registry, const CalibrationPlan &plan,
                 QuantizeContext &quantize_context) {
    const std::string label = "quantizer '" + name_ + "'";
    // The pass manager puts "quantizer 'x' failed: " in front of these two.
    if (!calibration_ ||
        (calibration_->config.path.empty() && calibration_->config.source.empty() && !calibration_->in_memory))
      throw Error("it calibrates on data and none was given: pass --calibration PATH (a folder of .npy "
                  "files, a .npz file, a token-id file, 'example-inputs' or 'random') or set the "
                  "manifest's calibration: block");
    const Registered<EvaluatorSpec> *evaluator_spec = registry.evaluator();
    if (!evaluator_spec)
      throw Error("it calibrates by running the graph, and no evaluator plugin is loaded (the bundled one "
                  "is aten-eval)");
    std::shared_ptr<const Evaluator> evaluator = evaluator_spec->spec.create();
    std::unique_ptr<CalibrationSource> source = openCalibrationSource(registry, *calibration_, graph);
    quantize_context.setBatchCount(source->size());
    TICO_INFO << label << ": calibrating on " << source->describe() << " (" << plan.observedValues().size()
              << " observed values, " << plan.layers().size() << " layers)";
    quant::CalibrationRunOptions options;
    options.memory_budget = calibration_->config.memory_budget;
    options.offload_dir = calibration_->config.offload_dir;
    options.progress = calibration_->progress;
    options.progress_bar = calibration_->progress_bar;
    options.label = label;
    const quant::CalibrationRunStats stats =
        quant::runCalibration(graph, *evaluator, *source, plan, *quantizer_, quantize_context, options);
    TICO_INFO << label << ": " << stats.batches << " batches; peak activations in memory "
              << stats.peak_resident_bytes << " bytes; offloaded " << stats.offloaded_tensors << " tensors ("
              << stats.offloaded_bytes << " bytes)";
  }

  std::string name_;
  std::unique_ptr<Quantizer> quantizer_;
  const CalibrationSetup *calibration_;
  std::vector<QuantizerMetric> *metrics_;
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

std::unique_ptr<Pass> createAtenPass(const Registry &registry, StageKind kind, const PassInvocation &invocation,
                                     const CalibrationSetup *calibration, std::vector<QuantizerMetric> *metrics) {
  if (kind == StageKind::Quantize)
    return std::make_unique<QuantizerPass>(
        invocation.name,
        create<Registered<QuantizerSpec>>(
            invocation, "quantizer", [&](const std::string &n) { return registry.findQuantizer(n); },
            registry.quantizerNames()),
        calibration, metrics);
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
              PassInstrumentation *instrumentation, const CalibrationSetup *calibration,
              std::vector<QuantizerMetric> *metrics) {
  if (!isAtenStage(stage.kind))
    throw LocatedError(stage.where, "stage '" + stage.name + "' (kind " + manifest::kindText(stage.kind) +
                                        ") does not run on the ATen-level graph");
  PassManager manager = managerFor<Graph>(stage, verify_each, instrumentation);
  if (stage.kind == StageKind::Quantize)
    manager.setPassNoun("quantizer");
  for (const auto &invocation : stage.passes)
    manager.add(invocation.name, createAtenPass(registry, stage.kind, invocation, calibration, metrics));
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
