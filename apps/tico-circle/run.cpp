// tico-circle run: execute a model on a runtime plugin (default: `builtin`, the built-in
// interpreter) on .npy inputs.
//
// The runtime is looked up by name through the runtime ABI; plugins are found the way tico-run
// finds them (next to the binary, the install prefix, TICO_PLUGIN_PATH, plus --plugin).
// Outputs go to <output-dir>/out0.npy, out1.npy, ... in the subgraph's output order. Every
// output is computed before the first file is written, and each file is written atomically,
// so a failed run leaves no partial file behind.
#include "tool.h"

#include "tico/circle/verify.h"
#include "tico/io/npy.h"
#include "tico/plugin/loader.h"
#include "tico/plugin/registry.h"
#include "tico/runtime/runtime.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

namespace tico::circle_tool {
namespace {

struct RunRequest {
  std::string input, output_dir, runtime = "builtin";
  std::vector<std::string> inputs, plugins;
  uint32_t subgraph = 0;
  bool force = false;
  int64_t max_iterations = 0; // 0: the runtime's default
};

int runModel(const RunRequest &request) {
  auto model = std::make_shared<CircleModel>(loadModel(request.input));
  // Runtimes rely on a consistent model (defined inputs, matching control-flow
  // interfaces); refuse a broken one with the verifier's findings instead of misbehaving.
  checkCircleModel(*model, "'" + request.input + "'");
  if (request.subgraph >= model->subgraphs.size())
    throw Error("--subgraph " + std::to_string(request.subgraph) + " out of range (the model has " +
                std::to_string(model->subgraphs.size()) + " subgraphs)");
  PluginSet plugins; // outlives everything the runtime creates (plugins are never unloaded)
  Registry registry;
  plugins.discover(registry);
  for (const auto &p : request.plugins)
    plugins.load(p, registry);
  const auto &spec = registry.requireRuntime(request.runtime).spec;
  std::map<std::string, OptionValue> given;
  if (request.max_iterations > 0)
    given["max_loop_iterations"] = request.max_iterations;
  const auto runtime = spec.create(Options::resolve("runtime '" + spec.name + "'", spec.options, given));
  const auto prepared = runtime->prepare(model);
  const auto expected = prepared->inputs(request.subgraph);
  if (request.inputs.size() != expected.size())
    throw Error("the model takes " + std::to_string(expected.size()) + " inputs but " +
                std::to_string(request.inputs.size()) + " --input files were given");
  std::vector<std::shared_ptr<const TensorData>> inputs;
  for (const auto &path : request.inputs)
    inputs.push_back(readNpy(path));
  const auto outputs = prepared->run(inputs, request.subgraph);

  std::error_code ec;
  std::filesystem::create_directories(request.output_dir, ec);
  if (ec)
    throw Error("cannot create output directory '" + request.output_dir + "': " + ec.message());
  auto pathOf = [&](std::size_t i) {
    return (std::filesystem::path(request.output_dir) / ("out" + std::to_string(i) + ".npy")).string();
  };
  // Every target is checked before the first one is written: none may be an input.
  std::vector<std::string> protected_files = request.inputs;
  protected_files.push_back(request.input);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    checkOutputTarget(pathOf(i), protected_files, request.force);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    writeNpy(pathOf(i), *outputs[i]);
  std::cerr << "tico-circle run: wrote " << outputs.size() << " outputs to " << request.output_dir << "\n";
  return kOk;
}

} // namespace

Action addRun(CLI::App &app) {
  auto request = std::make_shared<RunRequest>();
  app.add_option("model", request->input, "Circle file")->required();
  app.add_option("--input", request->inputs, "an input .npy file (repeat in the model's input order)")
      ->allow_extra_args(false);
  app.add_option("--output-dir", request->output_dir, "directory for out0.npy, out1.npy, ...")->required();
  app.add_option("--subgraph", request->subgraph, "run this subgraph instead of subgraph 0");
  app.add_option("--runtime", request->runtime, "the runtime plugin that executes the model (default: builtin)");
  app.add_option("--max-iterations", request->max_iterations,
                 "iterations one WHILE operator may run before the run fails (runtime option max_loop_iterations; "
                 "builtin default 1000000)")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  app.add_option("--plugin", request->plugins, "load this plugin in addition to the discovered ones")
      ->allow_extra_args(false);
  app.add_flag("--force", request->force, "replace outputs even when they are read-only files");
  return [request] { return runModel(*request); };
}

} // namespace tico::circle_tool
