#include "tico/pipeline/driver.h"

#include "tico/circle/circle_pass.h"
#include "tico/circle/serializer.h"
#include "tico/circle/writer.h"
#include "tico/ir/text.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <filesystem>

namespace tico {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::nanoseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
}

std::string extensionOf(const std::string &path) {
  return std::filesystem::path(path).extension().string();
}

// Collects per-pass times and forwards IR dumps.
class DriverInstrumentation : public PassInstrumentation {
public:
  explicit DriverInstrumentation(std::vector<PhaseTiming> *timings) : timings_(timings) {}
  void afterPass(const std::string &name, const Graph &, bool, std::chrono::nanoseconds elapsed) override {
    if (timings_)
      timings_->push_back(PhaseTiming{name, elapsed});
  }

private:
  std::vector<PhaseTiming> *timings_;
};

} // namespace

std::unique_ptr<Graph> loadModel(const Registry &registry, const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error("input file '" + path + "' does not exist");
  if (std::filesystem::is_directory(path, ec))
    throw Error("input '" + path + "' is a directory, not a model file");
  const Registered<FrontendSpec> *chosen = nullptr;
  for (const auto &[name, entry] : registry.frontends())
    if (entry.spec.sniff && entry.spec.sniff(path)) {
      chosen = &entry;
      break;
    }
  if (!chosen) {
    std::string ext = extensionOf(path);
    for (const auto &[name, entry] : registry.frontends())
      for (const auto &e : entry.spec.extensions)
        if (e == ext)
          chosen = &entry;
  }
  if (!chosen) {
    std::string known;
    for (const auto &[name, entry] : registry.frontends()) {
      known += (known.empty() ? "" : ", ") + name;
      for (const auto &e : entry.spec.extensions)
        known += " " + e;
    }
    throw Error("no frontend recognises '" + path + "'" +
                (known.empty() ? std::string(" (no frontend plugin is loaded)") : " (available: " + known + ")"));
  }
  TICO_INFO << "reading " << path << " with frontend '" << chosen->spec.name << "' from " << chosen->from.str();
  auto graph = chosen->spec.create()->load(path, registry.schemas());
  graph->setSchemas(&registry.schemas());
  return graph;
}

std::unique_ptr<Graph> loadModel(const Registry &registry, std::shared_ptr<const Storage> image,
                                 const std::string &name, const std::string &frontend) {
  if (!image)
    throw Error("no model image given for '" + name + "'");
  const Registered<FrontendSpec> *chosen = nullptr;
  if (!frontend.empty()) {
    chosen = registry.findFrontend(frontend);
    if (!chosen)
      throw Error("no frontend called '" + frontend + "' is loaded (needed to read '" + name + "')");
  } else {
    const std::string ext = extensionOf(name);
    for (const auto &[key, entry] : registry.frontends())
      for (const auto &e : entry.spec.extensions)
        if (e == ext)
          chosen = &entry;
    if (!chosen)
      throw Error("no frontend reads '" + name + "' (in memory; name the frontend, e.g. 'pt2')");
  }
  TICO_INFO << "reading " << name << " (" << image->size() << " bytes in memory) with frontend '"
            << chosen->spec.name << "' from " << chosen->from.str();
  auto graph = chosen->spec.create()->loadBytes(std::move(image), name, registry.schemas());
  graph->setSchemas(&registry.schemas());
  return graph;
}

bool runStage(const Registry &registry, const CompileConfig &config, const Stage &stage, Graph &graph,
              bool verify_each, PassInstrumentation *instrumentation) {
  PassContext context(registry, config);
  if (stage.kind == StageKind::Quantize) {
    bool changed = false;
    for (const auto &inv : stage.passes) {
      const auto *entry = registry.findQuantizer(inv.name);
      if (!entry)
        throw LocatedError(inv.where, "unknown quantizer '" + inv.name + "'" + didYouMean(inv.name, registry.quantizerNames()));
      auto quantizer = entry->spec.create(Options::resolve("quantizer '" + inv.name + "'", entry->spec.options, inv.options));
      changed |= quantizer->run(graph, context);
      if (verify_each)
        graph.verify();
    }
    return changed;
  }
  PassManager manager(stage.strategy);
  manager.setVerifyEach(verify_each);
  if (instrumentation)
    manager.addInstrumentation(instrumentation);
  for (const auto &inv : stage.passes) {
    const auto *entry = registry.findPass(inv.name);
    if (!entry)
      throw LocatedError(inv.where, "unknown pass '" + inv.name + "'" + didYouMean(inv.name, registry.passNames()));
    manager.add(inv.name, entry->spec.create(Options::resolve("pass '" + inv.name + "'", entry->spec.options, inv.options)));
  }
  return manager.run(graph, context);
}

bool runCircleStage(const Registry &registry, const CompileConfig &config, const Stage &stage, CircleModel &model) {
  PassContext context(registry, config);
  std::vector<std::pair<std::string, std::unique_ptr<CirclePass>>> passes;
  for (const auto &inv : stage.passes) {
    const auto *entry = registry.findCirclePass(inv.name);
    if (!entry)
      throw LocatedError(inv.where, "unknown Circle pass '" + inv.name + "'" +
                                        didYouMean(inv.name, registry.circlePassNames()));
    passes.emplace_back(inv.name, entry->spec.create(Options::resolve("Circle pass '" + inv.name + "'",
                                                                      entry->spec.options, inv.options)));
  }
  auto runOne = [&](std::pair<std::string, std::unique_ptr<CirclePass>> &p) {
    try {
      return p.second->run(model, context);
    } catch (const Error &e) {
      throw Error("Circle pass '" + p.first + "' failed: " + e.what());
    }
  };
  bool any = false;
  int iterations = 0;
  auto guard = [&](const std::string &name) {
    any = true;
    if (++iterations >= PassManager::kMaxIterations)
      throw Error("Circle stage '" + stage.name + "' did not converge after " +
                  std::to_string(PassManager::kMaxIterations) + " changing iterations (last change by '" + name + "')");
  };
  switch (stage.strategy) {
  case PassStrategy::Once:
    for (auto &p : passes)
      any |= runOne(p);
    break;
  case PassStrategy::Restart:
    for (std::size_t i = 0; i < passes.size();) {
      if (runOne(passes[i])) {
        guard(passes[i].first);
        i = 0;
      } else {
        ++i;
      }
    }
    break;
  case PassStrategy::UntilNoChange:
    for (bool changed = true; changed;) {
      changed = false;
      for (auto &p : passes)
        if (runOne(p)) {
          changed = true;
          guard(p.first);
        }
    }
    break;
  }
  return any;
}

ConversionResult convert(const Registry &registry, const Manifest &manifest, const ConversionOptions &options) {
  ConversionResult result;
  const bool verify_each = options.verify_each || manifest.verify_each;

  auto start = Clock::now();
  std::unique_ptr<Graph> graph;
  if (options.graph) {
    graph = options.graph->clone();
  } else if (options.input_bytes) {
    graph = loadModel(registry, options.input_bytes, options.input_path, options.input_frontend);
  } else {
    graph = loadModel(registry, options.input_path);
  }
  result.timings.push_back({"frontend", since(start)});
  if (verify_each)
    graph->verify();
  if (options.dump_ir)
    options.dump_ir("after frontend", printGraph(*graph));
  if (options.on_stage)
    options.on_stage("frontend", *graph);

  DriverInstrumentation instrumentation(options.time_passes ? &result.pass_timings : nullptr);
  if (!options.stop_after_frontend) {
    for (const auto &stage : manifest.stages) {
      if (stage.kind == StageKind::Circle)
        continue;
      if (!stage.when.holds(*graph)) {
        TICO_INFO << "stage '" << stage.name << "' skipped (condition " << stage.when.str() << " does not hold)";
        continue;
      }
      auto stage_start = Clock::now();
      bool changed = runStage(registry, manifest.config, stage, *graph, verify_each, &instrumentation);
      result.timings.push_back({"stage " + stage.name, since(stage_start)});
      TICO_INFO << "stage '" << stage.name << "' " << (changed ? "changed the graph" : "made no change");
      if (options.dump_ir)
        options.dump_ir("after stage " + stage.name, printGraph(*graph));
      if (options.on_stage)
        options.on_stage("stage " + stage.name, *graph);
    }
  }
  if (options.stop_before_lowering || options.stop_after_frontend) {
    result.graph = std::move(graph);
    return result;
  }

  auto lower_start = Clock::now();
  auto model = std::make_unique<CircleModel>(serializeGraph(*graph, registry, manifest.config));
  result.timings.push_back({"lowering", since(lower_start)});

  for (const auto &stage : manifest.stages) {
    if (stage.kind != StageKind::Circle)
      continue;
    auto stage_start = Clock::now();
    runCircleStage(registry, manifest.config, stage, *model);
    result.timings.push_back({"circle stage " + stage.name, since(stage_start)});
  }

  if (!options.output_path.empty()) {
    auto write_start = Clock::now();
    writeCircleFile(*model, options.output_path);
    result.timings.push_back({"write", since(write_start)});
  }
  result.graph = std::move(graph);
  result.model = std::move(model);
  return result;
}

} // namespace tico
