// tico-run: convert a torch.export program (.pt2) or a textual IR file (.tir) to Circle
// through the plugin pipeline described by a YAML manifest.
#include "tool.h"

#include "tico/pipeline/incremental.h"

#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/ir/text.h"
#include "tico/support/error.h"
#include "tico/support/file.h"
#include "tico/support/log.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

fs::path executableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

std::string defaultPipeline() {
  fs::path candidate = executableDir() / ".." / "share" / "tico" / "pipelines" / "default.yaml";
  std::error_code ec;
  if (fs::exists(candidate, ec))
    return fs::weakly_canonical(candidate, ec).string();
  return {};
}

std::string millis(std::chrono::nanoseconds ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%9.3f ms", static_cast<double>(ns.count()) / 1e6);
  return buf;
}

// --config FIELD=true|false: a field of the manifest's `config` block, set over the manifest's
// own value (docs/pipeline.md has the fields).
void applyConfigSetting(tico::CompileConfig &config, const std::string &setting) {
  const auto eq = setting.find('=');
  if (eq == std::string::npos || eq == 0)
    throw tico::Error("--config takes FIELD=true|false, got '" + setting + "'");
  const std::string field = setting.substr(0, eq), value = setting.substr(eq + 1);
  if (value != "true" && value != "false")
    throw tico::Error("--config " + field + ": the value must be true or false, got '" + value + "'");
  if (!config.set(field, value == "true"))
    throw tico::Error("--config: unknown config field '" + field + "'" +
                      tico::didYouMean(field, tico::CompileConfig::fieldNames()));
}

int run(int argc, char **argv) {
  CLI::App app{"tico-run: convert torch.export programs (.pt2) to Circle models through plugins"};
  app.set_version_flag("--version", std::string("tico-run ") + TICO_VERSION);

  std::string input, output, pipeline_path, emit = "circle", stop_after, passes_text;
  std::vector<std::string> extra_plugins, eval_inputs, evaluate_after;
  std::string output_dir, graph_dump_dir;
  std::string calibration, memory_budget, quant_recipe, encodings_path;
  std::size_t calibration_batches = 0;
  uint64_t calibration_seed = 0;
  bool no_progress = false;
  bool list_plugins = false, list_passes = false, list_ops = false, dump_ir = false, verbose = false,
       do_evaluate = false, verify_each = false, time_passes = false, force = false;

  app.add_option("input", input, "model to convert (.pt2, or .tir textual IR)");
  app.add_option("-o,--output", output, "output file (Circle; textual IR with --emit tir)");
  app.add_option("--pipeline", pipeline_path, "pipeline manifest (YAML); default: share/tico/pipelines/default.yaml");
  app.add_option("--passes", passes_text,
                 "run these passes (comma-separated, name{key=value} for options) as one stage instead of the "
                 "manifest's stages");
  app.add_option("--emit", emit, "what to write: circle (default) or tir")->check(CLI::IsMember({"circle", "tir"}));
  // Repeatable options take one value per occurrence (allow_extra_args(false)): otherwise CLI11
  // hands them the words that follow, and `--input x.npy model.pt2` would lose the model.
  app.add_option("--plugin", extra_plugins, "load this plugin in addition to the discovered ones (repeat)")
      ->allow_extra_args(false);
  app.add_flag("--list-plugins", list_plugins, "list loaded plugins and what they provide");
  app.add_flag("--list-passes", list_passes, "list passes, quantizers and Circle passes with their options");
  app.add_flag("--list-ops", list_ops, "list operators that have a Circle lowering");
  app.add_flag("--dump-ir", dump_ir, "print the IR after the frontend and after each stage");
  app.add_flag("--verify-each", verify_each, "verify the graph after every pass");
  app.add_flag("--time-passes", time_passes, "report the time of each phase and pass on stderr");
  app.add_flag("--evaluate", do_evaluate, "run the graph with the evaluator plugin instead of writing Circle");
  app.add_option("--stop-after", stop_after, "with --evaluate or --emit tir: stop after 'frontend'")
      ->check(CLI::IsMember({"frontend"}));
  app.add_option("--input", eval_inputs, "with --evaluate: an input .npy file (repeat in input order)")
      ->allow_extra_args(false);
  app.add_option("--output-dir", output_dir, "with --evaluate: directory for out0.npy, out1.npy, ...");
  app.add_option("--evaluate-after", evaluate_after,
                 "with --evaluate: run the graph after 'frontend', after an ATen-level stage of the pipeline, or at "
                 "'end' (repeat for several in one run); each point's outputs go to <output-dir>/<point>/")
      ->allow_extra_args(false);
  app.add_option("--dump-graphs", graph_dump_dir,
                 "write Graphviz pictures of the graph after the frontend and each stage into this folder "
                 "(TICO_GRAPH_DUMP=1 does the same into a new private folder .tico_tmp/session_<timestamp>_<random>)");
  app.add_option("--quant", quant_recipe,
                 "quantization recipe (configs/quant/*.yaml): its quantize stages run before the pipeline's "
                 "'quantize' stage, its calibration block applies");
  app.add_option("--calibration", calibration,
      "calibration data, [SOURCE:]PATH: a folder of .npy files, a .npz file, a token-id file, "
      "'example-inputs' (the archive's) or 'random'");
  auto *batches_option = app.add_option("--calibration-batches", calibration_batches, "use at most N calibration batches")
                             ->check(CLI::Range(std::size_t{1}, tico::kMaxCalibrationBatches));
  auto *seed_option = app.add_option("--calibration-seed", calibration_seed, "seed of sources that draw data");
  app.add_option("--memory-budget", memory_budget,
                 "activations calibration keeps in memory (e.g. 4GiB); the rest goes to disk");
  app.add_flag("--no-progress", no_progress, "no calibration progress on stderr");
  app.add_option("--encodings", encodings_path,
                 "also write every quantized tensor's encoding (scale, zero point, type) as JSON to this file");
  bool incremental = false;
  std::vector<std::string> incremental_groups;
  int64_t incremental_max_strategies = 8;
  std::string incremental_budget;
  bool incremental_fused = false;
  app.add_flag("--incremental", incremental,
               "add incremental strategies (docs/incremental.md): region subgraphs + signatures, the manifest in "
               "the file's metadata and in <output stem>.incremental.json");
  app.add_option("--incremental-group", incremental_groups,
                 "with --incremental: inputs that change together, joined by '+' (repeat per group)")
      ->allow_extra_args(false);
  app.add_option("--incremental-max-strategies", incremental_max_strategies,
                 "with --incremental: strategies besides the monolith (default 8)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--incremental-fused", incremental_fused,
               "with --incremental: also package each strategy as one subgraph (one dispatch per call)");
  app.add_option("--incremental-budget", incremental_budget,
                 "with --incremental: bytes all retained tensors may take (e.g. 64KiB; default unlimited)");
  std::vector<std::string> signatures;
  std::vector<std::string> signature_output_names;
  std::vector<std::string> metadata_files;
  std::vector<std::string> config_settings;
  app.add_option("--config", config_settings,
                 "FIELD=true|false: set a field of the pipeline's config block (repeat), e.g. float16_weights=false "
                 "for a file onert loads (docs/pipeline.md lists the fields)")
      ->allow_extra_args(false);
  app.add_option("--signature", signatures,
                 "lower once per signature: NAME:INPUT.DIM=SIZE[,INPUT.DIM=SIZE...] fixes dynamic input dimensions "
                 "(repeat per signature; e.g. prefill:input_ids.1=128 and decode:input_ids.1=1); the file holds a "
                 "subgraph and a SignatureDef each, weights stored once")
      ->allow_extra_args(false);
  app.add_option("--signature-output-names", signature_output_names,
                 "with --signature: names of the outputs in every SignatureDef, in order (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--metadata", metadata_files, "NAME=FILE: store FILE's bytes as the Circle metadata entry NAME (repeat)")
      ->allow_extra_args(false);
  app.add_flag("--force", force, "replace outputs even when they are read-only files");
  app.add_flag("-v,--verbose", verbose, "debug logging (same as TICO_LOG=4)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (verbose)
    tico::log::setLevel(tico::log::Level::Debug);

  // Inputs are checked before anything is loaded: a FIFO or device would block the reader.
  if (!input.empty())
    tico::requireRegularFile(input, "input model");
  std::vector<std::string> inputs = extra_plugins;
  inputs.insert(inputs.end(), {input, pipeline_path, quant_recipe});
  std::vector<std::pair<std::string, std::string>> metadata_entries;
  for (const std::string &entry : metadata_files) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      throw tico::Error("--metadata takes NAME=FILE, got '" + entry + "'");
    metadata_entries.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    tico::requireRegularFile(metadata_entries.back().second, "metadata file");
    inputs.push_back(metadata_entries.back().second);
  }
  inputs.insert(inputs.end(), eval_inputs.begin(), eval_inputs.end());
  if (!output.empty())
    tico::checkOutputTarget(output, inputs, force);
  if (!encodings_path.empty()) {
    if (output.empty() || emit != "circle" || do_evaluate)
      throw tico::Error("--encodings describes the Circle file written with -o");
    tico::checkOutputTarget(encodings_path, inputs, force);
  }
  if ((!incremental_groups.empty() || !incremental_budget.empty() || incremental_fused) && !incremental)
    throw tico::Error("--incremental-group, --incremental-budget and --incremental-fused go with --incremental");
  if (incremental && (output.empty() || emit != "circle" || do_evaluate))
    throw tico::Error("--incremental describes the Circle file written with -o");
  const std::string sidecar = output.empty() ? std::string() : tico::run::incrementalSidecarPath(output);
  if (incremental)
    tico::checkOutputTarget(sidecar, inputs, force);
  tico::checkDistinctOutputs({{"-o", output}, {"--encodings", encodings_path}, {"the incremental manifest", incremental ? sidecar : std::string()}});

  tico::PluginSet plugins;
  tico::Registry registry;
  plugins.discover(registry);
  for (const auto &p : extra_plugins)
    plugins.load(p, registry);
  if (!extra_plugins.empty())
    registry.checkOpReferences(); // the extra plugins' op keys

  if (list_plugins || list_passes || list_ops) {
    if (list_plugins)
      tico::run::listPlugins(plugins, registry);
    if (list_passes)
      tico::run::listPasses(registry);
    if (list_ops)
      tico::run::listOps(registry);
    return 0;
  }
  if (input.empty())
    throw tico::Error("no input model given (see --help)");
  if (!do_evaluate && emit == "circle" && output.empty() && !dump_ir)
    throw tico::Error("no output file given (-o FILE)");
  if (!evaluate_after.empty() && !do_evaluate)
    throw tico::Error("--evaluate-after goes with --evaluate");
  if (!evaluate_after.empty() && !stop_after.empty())
    throw tico::Error("--stop-after and --evaluate-after do not go together (--evaluate-after frontend stops there)");

  tico::Manifest manifest;
  if (!passes_text.empty()) {
    // An ad-hoc single stage; a manifest given alongside still supplies the compile config,
    // verify_each and the options of its lower stage (its other stages are replaced).
    tico::Manifest given;
    if (!pipeline_path.empty())
      given = tico::Manifest::load(pipeline_path);
    manifest.config = given.config;
    manifest.verify_each = given.verify_each;
    manifest.addStage(tico::Stage::fromPassList("passes", tico::StageKind::Passes, passes_text, "--passes"));
    if (const tico::Stage *lower = given.lowerStage())
      manifest.addStage(*lower);
  } else {
    if (pipeline_path.empty())
      pipeline_path = defaultPipeline();
    if (pipeline_path.empty())
      throw tico::Error("no pipeline manifest given and no default found next to tico-run (use --pipeline FILE)");
    // The default manifest was not known when the output was checked above.
    if (!output.empty())
      tico::checkOutputTarget(output, {pipeline_path}, force);
    manifest = tico::Manifest::load(pipeline_path);
  }
  for (const std::string &setting : config_settings)
    applyConfigSetting(manifest.config, setting);
  if (!quant_recipe.empty())
    manifest.insertQuantization(tico::Manifest::load(quant_recipe));
  if (incremental)
    tico::exposeStateWrites(manifest);
  manifest.validate(registry);
  // A pipeline stage that runs incremental-strategies writes the manifest beside the file too:
  // it is an output like --incremental's, checked now and written with the others.
  const bool stage_writes_manifest = !incremental && emit == "circle" && !do_evaluate && !output.empty() &&
                                     tico::runsIncrementalStrategies(manifest);
  if (stage_writes_manifest) {
    tico::checkOutputTarget(sidecar, inputs, force);
    tico::checkDistinctOutputs({{"-o", output}, {"--encodings", encodings_path}, {"the incremental manifest", sidecar}});
  }
  const bool writes_manifest = incremental || stage_writes_manifest;
  // Calibration data is an input too (only known now: the recipe may name it): no output may
  // replace a calibration file or land in a calibration folder.
  tico::CalibrationConfig given_calibration = manifest.calibration;
  tico::CalibrationConfig command_line;
  command_line.path = calibration;
  given_calibration.merge(command_line); // as the driver merges them
  if (const std::string data = tico::calibrationDataPath(registry, given_calibration); !data.empty())
    for (const std::string &out : {output, encodings_path, writes_manifest ? sidecar : std::string()}) {
      if (out.empty())
        continue;
      tico::checkOutputTarget(out, {data}, force);
      tico::checkOutputOutside(out, data, "calibration data folder");
    }

  std::optional<tico::run::Evaluation> evaluation;
  if (do_evaluate)
    evaluation.emplace(registry, manifest, tico::run::EvaluateRequest{eval_inputs, output_dir, evaluate_after, inputs, force});

  tico::ConversionOptions options;
  for (const std::string &text : signatures)
    options.signatures.push_back(tico::parseSignatureRequest(text));
  if (!signature_output_names.empty() && options.signatures.empty())
    throw tico::Error("--signature-output-names goes with --signature");
  options.signature_output_names = signature_output_names;
  for (const auto &[name, file] : metadata_entries) {
    const std::string text = tico::readRegularFile(file, "metadata file", std::numeric_limits<std::size_t>::max());
    const auto *begin = reinterpret_cast<const std::byte *>(text.data());
    options.metadata.emplace_back(name, std::vector<std::byte>(begin, begin + text.size()));
  }
  tico::CalibrationConfig &calibration_config = options.calibration.config;
  calibration_config.where = {"command line", 0, 0};
  calibration_config.path = calibration;
  if (*batches_option)
    calibration_config.batches = calibration_batches;
  if (*seed_option)
    calibration_config.seed = calibration_seed;
  if (!memory_budget.empty())
    calibration_config.memory_budget = tico::parseByteSize(memory_budget);
  options.calibration.progress = !no_progress;
  options.calibration.progress_bar = ::isatty(STDERR_FILENO) != 0;
  options.input_path = input;
  options.verify_each = verify_each;
  options.verify_circle = tico::requireValidCircleModel;
  options.time_passes = time_passes;
  options.stop_after_frontend = stop_after == "frontend" || (evaluation && evaluation->frontendOnly());
  options.stop_before_lowering = do_evaluate || emit == "tir";
  // With --encodings the Circle file is written below, once the JSON is ready, so a failure
  // leaves neither file.
  if (emit == "circle" && !do_evaluate && encodings_path.empty() && !writes_manifest)
    options.output_path = output;
  if (dump_ir)
    options.dump_ir = [](const std::string &title, const std::string &ir) {
      std::cout << "// ----- IR " << title << "\n" << ir << std::flush;
    };
  if (graph_dump_dir.empty()) {
    const char *env = std::getenv("TICO_GRAPH_DUMP");
    if (env && *env && std::string(env) != "0")
      graph_dump_dir = tico::run::defaultGraphDumpDir();
  }
  std::shared_ptr<tico::run::GraphDumper> dumper;
  if (!graph_dump_dir.empty())
    dumper = std::make_shared<tico::run::GraphDumper>(graph_dump_dir);
  if (dumper || evaluation)
    options.on_stage = [&dumper, &evaluation](const std::string &title, const tico::Graph &g) {
      if (dumper)
        dumper->dump(title, g);
      if (evaluation)
        evaluation->afterStage(title, g);
    };
  if (evaluation)
    options.on_stage_skipped = [&evaluation](const std::string &stage, const tico::Graph &g) {
      evaluation->afterStage(stage, g);
    };
  if (fs::path(input).extension() == ".tir") {
    tico::ParseOptions parse_options;
    parse_options.file_name = input;
    parse_options.schemas = &registry.schemas();
    options.graph = tico::parseGraph(tico::readRegularFile(input, "input model", std::numeric_limits<std::size_t>::max()),
                                     parse_options);
  }

  tico::ConversionResult result = tico::convert(registry, manifest, options);
  if (incremental) {
    tico::IncrementalRequest request;
    request.groups = incremental_groups;
    request.max_strategies = incremental_max_strategies;
    if (!incremental_budget.empty())
      request.budget = static_cast<int64_t>(tico::parseByteSize(incremental_budget));
    // The program's writes to buffers and inputs, as the stages saw them before state-writes
    // dropped them: the Circle model has no trace of them, but a strategy would skip them.
    request.state_writes.assign(result.state_writes.begin(), result.state_writes.end());
    if (fs::path(input).extension() == ".pt2")
      request.example_inputs = input;
    request.fused = incremental_fused;
    const auto started = std::chrono::steady_clock::now();
    tico::addIncrementalStrategies(registry, *result.model, request, tico::requireValidCircleModel);
    result.timings.push_back({"incremental-strategies (analysis, planning, packaging, validation)",
                              std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - started)});
  }
  // The manifest beside the file. One that a Circle pass added unannounced (not incremental-strategies)
  // is only known now, after the driver wrote the Circle file.
  const bool has_manifest = result.model && tico::incrementalManifest(*result.model).has_value();
  if (!writes_manifest && has_manifest && !output.empty())
    tico::checkOutputTarget(sidecar, inputs, force);
  // The Circle file (unless the driver wrote it), its encodings and its manifest: all or none.
  tico::OutputBatch outputs;
  if (writes_manifest || !encodings_path.empty())
    tico::writeCircleFile(*result.model, output, outputs);
  if (!encodings_path.empty())
    outputs.addText(encodings_path, "encodings file",
                    tico::run::encodingsJson(*result.model, result.quantizer_metrics, output));
  if (has_manifest && !output.empty())
    outputs.addText(sidecar, "incremental manifest", *tico::incrementalManifest(*result.model));
  outputs.commit();

  if (evaluation)
    evaluation->finish(*result.graph);
  if (emit == "tir") {
    std::string text = tico::printGraph(*result.graph);
    if (output.empty())
      std::cout << text;
    else
      tico::writeTextFile(output, "textual IR file", text);
  }
  if (time_passes) {
    std::cerr << "phase timings:\n";
    for (const auto &t : result.timings)
      std::cerr << "  " << millis(t.elapsed) << "  " << t.phase << "\n";
    std::cerr << "pass timings:\n";
    for (const auto &t : result.pass_timings)
      std::cerr << "  " << millis(t.elapsed) << "  " << t.phase << "\n";
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const tico::Error &e) {
    std::cerr << "tico-run: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "tico-run: internal error: " << e.what() << "\n";
    return 2;
  }
}
