// tico-circle optimize: Circle-to-Circle passes from plugins, as an ad-hoc list or the O1 preset.
//
// Plugins are found the way tico-run finds them (next to the binary, the install prefix,
// TICO_PLUGIN_PATH, plus --plugin); passes run through the pipeline driver's runStage, so
// a pass behaves the same here and in a conversion pipeline.
#include "tool.h"

#include "tico/pipeline/driver.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/loader.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

namespace tico::circle_tool {
namespace {

struct OptimizeRequest {
  std::string input, output, passes, strategy = "until-no-change", pipeline, folding_profile;
  int level = 0;
  bool no_verify = false, force = false;
  bool o1() const { return level == 1; }
  std::vector<std::string> plugins, enable;
};

Manifest adhocManifest(const OptimizeRequest &request) {
  static const std::map<std::string, PassStrategy> strategies = {
      {"once", PassStrategy::Once}, {"until-no-change", PassStrategy::UntilNoChange}, {"restart", PassStrategy::Restart}};
  const auto strategy = strategies.find(request.strategy);
  if (strategy == strategies.end())
    throw Error("--strategy must be once, until-no-change or restart, not '" + request.strategy + "'");
  Manifest manifest;
  manifest.path = "--passes";
  manifest.addStage(Stage::fromPassList("passes", StageKind::Circle, request.passes, "--passes", strategy->second));
  return manifest;
}

// The O1 preset with the optional passes the user switched on and the folding profile chosen.
Manifest presetManifest(const OptimizeRequest &request) {
  std::string path = request.pipeline;
  if (path.empty()) {
    const std::filesystem::path candidate =
        std::filesystem::path(executableDir()) / ".." / "share" / "tico" / "pipelines" / "circle-o1.yaml";
    std::error_code ec;
    if (!std::filesystem::exists(candidate, ec))
      throw Error("-O1 needs the preset share/tico/pipelines/circle-o1.yaml next to tico-circle (not found at " +
                  candidate.lexically_normal().string() + "); give one with --pipeline FILE");
    path = candidate.lexically_normal().string();
  }
  YAML::Node root;
  try {
    root = YAML::Load(readRegularFile(path, "pipeline manifest"));
  } catch (const YAML::Exception &e) {
    throw Error("cannot read pipeline '" + path + "': " + e.what());
  }
  std::set<std::string> pending(request.enable.begin(), request.enable.end());
  bool folding_found = false;
  if (YAML::Node stages = root["stages"]; stages && stages.IsSequence())
    for (YAML::Node stage : stages)
      if (YAML::Node passes = stage["passes"]; passes && passes.IsSequence())
        for (std::size_t i = 0; i < passes.size(); ++i) {
          YAML::Node entry = passes[i];
          const std::string name = entry.IsMap() && entry["name"] ? entry["name"].as<std::string>()
                                                                  : entry.IsScalar() ? entry.as<std::string>() : "";
          // Only entries written with `enabled:` are optional; a const view keeps the lookup from
          // adding the key to the others.
          const YAML::Node &view = entry;
          if (pending.count(name) && view.IsMap() && view["enabled"]) {
            entry["enabled"] = true;
            pending.erase(name);
          }
          if (name == "fold-constants" && !request.folding_profile.empty()) {
            folding_found = true;
            if (!entry.IsMap()) {
              YAML::Node map;
              map["name"] = name;
              passes[i] = map;
              entry = passes[i];
            }
            entry["options"]["profile"] = request.folding_profile;
          }
        }
  if (!pending.empty())
    throw Error("--enable '" + *pending.begin() + "': the preset '" + path + "' has no optional pass of that name");
  if (!request.folding_profile.empty() && !folding_found)
    throw Error("--constant-folding-profile: the preset '" + path + "' has no fold-constants pass");
  YAML::Emitter emitter;
  emitter << root;
  return Manifest::parse(emitter.c_str(), path);
}

int optimize(const OptimizeRequest &request) {
  if (request.o1() == !request.passes.empty())
    throw Error(request.o1() ? "give either -O1 or --passes, not both" : "optimize needs --passes a,b,c or -O1");
  if (!request.o1() && (!request.enable.empty() || !request.folding_profile.empty() || !request.pipeline.empty()))
    throw Error("--enable, --constant-folding-profile and --pipeline belong to -O1");
  std::vector<std::string> inputs = request.plugins;
  inputs.insert(inputs.end(), {request.input, request.pipeline});
  checkOutputTarget(request.output, inputs, request.force);

  // The model first: a file that cannot be read is the problem to report, whatever the passes.
  CircleModel model = loadModel(request.input);
  PluginSet plugins;
  Registry registry;
  plugins.discover(registry);
  for (const auto &p : request.plugins)
    plugins.load(p, registry);
  if (!request.plugins.empty())
    registry.checkOpReferences(); // the extra plugins' op keys

  const Manifest manifest = request.o1() ? presetManifest(request) : adhocManifest(request);
  // The preset's lower stage marks where its stages run in a conversion; a Circle file is
  // lowered already, so only the Circle stages apply here.
  for (const auto &stage : manifest.stages)
    if (stage.kind != StageKind::Circle && stage.kind != StageKind::Lower)
      throw Error("stage '" + stage.name + "' of '" + manifest.path + "' is not a Circle stage (kind: circle)");
  manifest.validate(registry);

  std::size_t ops_before = 0, ops_after = 0;
  for (const auto &sg : model.subgraphs)
    ops_before += sg.operators.size();
  for (const auto &stage : manifest.stages) {
    if (stage.kind != StageKind::Circle)
      continue;
    const auto start = std::chrono::steady_clock::now();
    const bool changed = runStage(registry, stage, model);
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "tico-circle optimize: stage '" << stage.name << "' " << (changed ? "changed the model" : "made no change")
              << " (" << ms << " ms)\n";
  }
  for (const auto &sg : model.subgraphs)
    ops_after += sg.operators.size();
  saveModel(model, request.output, !request.no_verify, "optimize");
  std::cerr << "tico-circle optimize: " << ops_before << " -> " << ops_after << " operators, written to "
            << request.output << "\n";
  return kOk;
}

} // namespace

Action addOptimize(CLI::App &app) {
  auto request = std::make_shared<OptimizeRequest>();
  app.add_option("input", request->input, "Circle file")->required();
  app.add_option("-o,--output", request->output, "Circle file to write")->required();
  app.add_option("--passes", request->passes,
                 "Circle passes to run, comma-separated (name{key=value} sets pass options)");
  app.add_option("--strategy", request->strategy, "with --passes: once, until-no-change (default) or restart");
  // CLI11 reads "-O1" as option -O with value 1.
  app.add_option("-O,--opt-level", request->level, "1: run the O1 preset (share/tico/pipelines/circle-o1.yaml)")
      ->check(CLI::Range(1, 1));
  app.add_option("--pipeline", request->pipeline, "with -O1: use this preset file instead");
  app.add_option("--enable", request->enable, "with -O1: switch on an optional pass of the preset (repeatable)");
  app.add_option("--constant-folding-profile", request->folding_profile, "with -O1: basic or heavy")
      ->check(CLI::IsMember({"basic", "heavy"}));
  app.add_option("--plugin", request->plugins, "load this plugin in addition to the discovered ones")
      ->allow_extra_args(false);
  app.add_flag("--no-verify", request->no_verify, "write the result without verifying it");
  app.add_flag("--force", request->force, "replace the output even when it is a read-only file");
  return [request] { return optimize(*request); };
}

} // namespace tico::circle_tool
