// The incremental compiler: analysis → planning → packaging → validation → manifest, on the
// lowered monolith. Pruning (dominance) and validation failures remove a strategy from the plan
// and the package is built again from the smaller plan, so the retained set and the callables'
// outputs always match exactly the strategies that are emitted.
#include "incremental.h"

#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <algorithm>
#include <map>
#include <set>

namespace tico::incremental {
namespace {

std::vector<std::string> sortedNames(const CircleSubGraph &g, const std::vector<int32_t> &tensors) {
  std::vector<std::string> out;
  for (int32_t t : tensors)
    out.push_back(g.tensors[t].name);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

CompileReport compileIncremental(const Registry &registry, CircleModel &model, const CompileOptions &options) {
  for (const auto &[name, _] : model.metadata)
    if (name == kManifestName)
      throw Error(std::string("incremental: the model already carries a manifest (metadata '") + kManifestName + "')");
  const InputGroups groups = makeGroups(model, options.groups);
  const SupportAnalysis analysis = analyzeSupport(model, groups);
  Plan plan = planStrategies(model, groups, analysis, options.plan);
  const CircleSubGraph &g = model.subgraphs.at(0);

  const auto monolith_bytes = serializeCircle(model);
  ManifestContext context;
  context.model_id = digestBytes(monolith_bytes.data(), monolith_bytes.size());
  context.budget = options.plan.budget;
  context.max_strategies = options.plan.max_strategies;
  context.runtime = options.runtime;
  context.seed = options.seed;
  context.validation_inputs = "seeded";
  context.monolith_macs = plan.monolith_macs;

  auto dropChosen = [&](GroupSet changed, const std::string &reason) {
    auto it = std::find_if(plan.chosen.begin(), plan.chosen.end(),
                           [&](const Candidate &c) { return c.changed == changed; });
    if (it != plan.chosen.end())
      plan.chosen.erase(it);
    plan.rejected.push_back({changed, reason});
  };
  auto recomputeRetained = [&] {
    std::set<int32_t> r;
    for (const Candidate &c : plan.chosen)
      r.insert(c.frontier.begin(), c.frontier.end());
    plan.retained.assign(r.begin(), r.end());
  };

  Package package;
  CircleModel packaged;
  for (std::size_t round = 0;; ++round) {
    recomputeRetained();
    package = buildPackage(model, groups, analysis, plan, options.fused);

    // Dominance with the callable-subset rule (never the monolith).
    std::vector<StrategySummary> summaries;
    for (const Strategy &s : package.strategies) {
      StrategySummary x;
      x.name = s.name;
      x.changed = s.changed;
      x.macs = s.macs;
      x.monolith = s.monolith;
      x.reads_retained = sortedNames(g, s.reads_retained);
      x.writes_retained = sortedNames(g, s.writes_retained);
      if (s.monolith)
        x.callables = {monolithSignature(model)};
      for (std::size_t k : s.steps)
        x.callables.push_back(package.callables[k].signature);
      std::sort(x.callables.begin(), x.callables.end());
      summaries.push_back(std::move(x));
    }
    bool changed = false;
    for (std::size_t i : dominatedStrategies(summaries)) {
      const Strategy &s = package.strategies[i];
      if (s.name == "all_changed")
        continue; // the refresh path; it only goes with the last chosen strategy
      std::string by;
      for (const auto &a : summaries)
        if (&a != &summaries[i] && dominates(a, summaries[i]))
          by = a.name;
      dropChosen(s.changed, "dominated by strategy '" + by + "' (no worse for every change set and cache state, "
                            "and its callables are a subset)");
      changed = true;
    }
    if (changed)
      continue;

    packaged = model;
    emitCallables(packaged, package);
    auto validation =
        validateStrategies(registry, options.runtime, packaged, groups, package, options.seed, options.example_model);
    context.validation_inputs = validation.inputs_description;
    for (const auto &[index, reason] : validation.failed) {
      const Strategy &s = package.strategies[index];
      if (s.name == "all_changed") {
        while (!plan.chosen.empty())
          dropChosen(plan.chosen.front().changed, reason + " (the full chain of regions)");
      } else {
        dropChosen(s.changed, reason);
      }
      changed = true;
    }
    if (!changed || round > 64)
      break;
  }
  std::stable_sort(plan.rejected.begin(), plan.rejected.end(),
                   [](const Rejection &a, const Rejection &b) { return a.changed < b.changed; });
  context.rejected = plan.rejected;

  CompileReport report;
  report.manifest = manifestJson(packaged, groups, analysis, package, context);
  report.strategies = package.strategies.size() > 1 ? package.strategies.size() - 2 : 0;
  report.callables = package.callables.size();
  report.rejected = plan.rejected.size();
  std::vector<uint8_t> text(report.manifest.begin(), report.manifest.end());
  auto data = std::make_shared<TensorData>(
      TensorData::fromVector(DType::UInt8, {static_cast<int64_t>(text.size())}, text));
  const uint32_t buffer = packaged.addBuffer(std::move(data));
  packaged.metadata.emplace_back(kManifestName, buffer);
  model = std::move(packaged);
  return report;
}

} // namespace tico::incremental
