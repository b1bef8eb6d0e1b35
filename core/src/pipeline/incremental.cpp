#include "tico/pipeline/incremental.h"

#include "tico/circle/circle_pass.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace tico {

namespace {
constexpr const char *kPass = "incremental-strategies";
constexpr const char *kManifest = "incremental.manifest.v1";
} // namespace

void exposeStateWrites(Manifest &manifest) {
  for (std::size_t i = 0; i < manifest.stages.size(); ++i) {
    Stage &stage = manifest.stages[i];
    if (stage.kind != StageKind::Passes)
      continue;
    auto it = std::find_if(stage.passes.begin(), stage.passes.end(),
                           [](const PassInvocation &p) { return p.name == "state-writes"; });
    if (it == stage.passes.begin() || it == stage.passes.end())
      continue;
    if (stage.strategy != PassStrategy::Once) {
      // Splitting would change what a repeating stage does; the writes its earlier passes make
      // visible are then dropped before anyone can see them.
      TICO_WARN << "incremental strategies: stage '" << stage.name
                << "' repeats its passes and drops state writes with state-writes; writes made visible by "
                   "its earlier passes cannot be observed, so they cannot refuse incremental strategies";
      continue;
    }
    Stage rest = stage;
    rest.name = stage.name + "-state-writes";
    rest.passes.assign(std::next(stage.passes.begin(), it - stage.passes.begin()), stage.passes.end());
    stage.passes.erase(it, stage.passes.end());
    manifest.stages.insert(manifest.stages.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(rest));
    ++i;
  }
}

void noteStateWrites(const Graph &graph, std::set<std::string> &writes) {
  for (const auto &out : graph.outputs())
    if (out.kind != OutputKind::User)
      writes.insert(out.target);
}

bool runsIncrementalStrategies(const Manifest &manifest) {
  for (const auto &stage : manifest.stages)
    if (stage.kind == StageKind::Circle)
      for (const auto &pass : stage.passes)
        if (pass.name == kPass)
          return true;
  return false;
}

void passStateWrites(Stage &stage, const std::set<std::string> &writes) {
  for (auto &pass : stage.passes) {
    if (pass.name != kPass || writes.empty())
      continue;
    std::set<std::string> all(writes);
    if (auto it = pass.options.find("state_writes"); it != pass.options.end())
      if (const auto *given = std::get_if<std::vector<std::string>>(&it->second))
        all.insert(given->begin(), given->end());
    pass.options["state_writes"] = std::vector<std::string>(all.begin(), all.end());
  }
}

void addIncrementalStrategies(const Registry &registry, CircleModel &model, const IncrementalRequest &request,
                              const std::function<void(const CircleModel &)> &verify) {
  const auto *entry = registry.findCirclePass(kPass);
  if (!entry)
    throw Error(std::string("incremental strategies need the Circle pass '") + kPass +
                "' of the plugin 'incremental' (libtico-incremental.so), which is not loaded");
  std::map<std::string, OptionValue> values{{"groups", request.groups},
                                            {"max_strategies", request.max_strategies},
                                            {"retained_budget", request.budget},
                                            {"state_writes", request.state_writes},
                                            {"example_inputs", request.example_inputs},
                                            {"fused", request.fused}};
  auto pass = entry->spec.create(Options::resolve(kPass, entry->spec.options, values));
  PassContext context(registry);
  try {
    pass->run(model, context);
  } catch (const Error &e) {
    throw Error(std::string("Circle pass '") + kPass + "' failed: " + e.what());
  }
  if (verify)
    verify(model);
}

std::optional<std::string> incrementalManifest(const CircleModel &model) {
  for (const auto &[name, buffer] : model.metadata) {
    if (name != kManifest || buffer >= model.buffers.size() || !model.buffers[buffer].data)
      continue;
    auto bytes = model.buffers[buffer].data->contiguousBytes();
    return std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  }
  return std::nullopt;
}

} // namespace tico
