#include "tico/pipeline/driver.h"

#include "tico/circle/circle_pass.h"
#include "tico/circle/serializer.h"
#include "tico/circle/signatures.h"
#include "tico/circle/writer.h"
#include "tico/pipeline/incremental.h"
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

// Collects per-pass times, for either IR.
template <class IR> class TimingInstrumentation : public BasicPassInstrumentation<IR> {
public:
  explicit TimingInstrumentation(std::vector<PhaseTiming> *timings) : timings_(timings) {}
  void afterPass(const std::string &name, const IR &, bool, std::chrono::nanoseconds elapsed) override {
    if (timings_)
      timings_->push_back(PhaseTiming{name, elapsed});
  }

private:
  std::vector<PhaseTiming> *timings_;
};

// The lower stage of a multi-signature conversion: one specialization of `graph` per signature,
// each lowered, merged into one model.
CircleModel lowerSignatures(const Graph &graph, const Registry &registry, const LowerOptions &lower,
                            const ConversionOptions &options) {
  std::vector<SignaturePart> parts;
  for (const SignatureRequest &request : options.signatures) {
    std::unique_ptr<Graph> specialized = graph.clone();
    try {
      specializeSymbols(*specialized, bindingsForInputSizes(*specialized, request.sizes));
      if (options.verify_each)
        specialized->verify();
      parts.push_back({request.name, serializeGraph(*specialized, registry, lower)});
    } catch (const UnsupportedOpsError &) {
      throw;
    } catch (const Error &e) {
      throw Error("signature '" + request.name + "': " + e.what());
    }
  }
  CircleModel model = mergeAsSignatures(std::move(parts));
  const auto &names = options.signature_output_names;
  for (CircleSignature &signature : model.signatures) {
    if (names.empty())
      break;
    if (names.size() != signature.outputs.size())
      throw Error(std::to_string(names.size()) + " output names given for signature '" + signature.key + "', which has " +
                  std::to_string(signature.outputs.size()) + " outputs");
    for (std::size_t i = 0; i < names.size(); ++i)
      signature.outputs[i].name = names[i];
  }
  return model;
}

void addMetadata(CircleModel &model, const std::vector<std::pair<std::string, std::vector<std::byte>>> &entries) {
  for (const auto &[name, bytes] : entries) {
    for (const auto &existing : model.metadata)
      if (existing.first == name)
        throw Error("metadata '" + name + "' is given twice");
    const auto size = static_cast<int64_t>(bytes.size());
    auto data = std::make_shared<const TensorData>(TensorData::fromBytes(DType::UInt8, {size}, bytes));
    model.metadata.emplace_back(name, model.addBuffer(std::move(data)));
  }
}

} // namespace

SignatureRequest parseSignatureRequest(const std::string &text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw Error("signature '" + text + "' is not NAME:INPUT.DIM=SIZE[,INPUT.DIM=SIZE...]");
  SignatureRequest request{text.substr(0, colon), {}};
  std::string_view rest = std::string_view(text).substr(colon + 1);
  while (true) {
    const auto comma = rest.find(',');
    request.sizes.push_back(parseInputDimSize(std::string(rest.substr(0, comma))));
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  return request;
}

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

ConversionResult convert(const Registry &registry, const Manifest &manifest, const ConversionOptions &options) {
  ConversionResult result;
  Manifest pipeline = manifest.resolved(); // config aliases in the options, lowering explicit
  // A Circle stage that runs incremental-strategies gets the program's state writes, as
  // tico-run --incremental does: they are only visible before state-writes drops them.
  const bool stage_runs_incremental = runsIncrementalStrategies(pipeline);
  if (stage_runs_incremental)
    exposeStateWrites(pipeline);
  const bool verify_each = options.verify_each || pipeline.verify_each;
  // The manifest's calibration block (Manifest::load made its path usable from here), then
  // what the caller gave on top.
  CalibrationSetup calibration = options.calibration;
  calibration.config = pipeline.calibration;
  calibration.config.merge(options.calibration.config);
  if (calibration.model_path.empty())
    calibration.model_path = options.input_path;

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
  noteStateWrites(*graph, result.state_writes);

  std::vector<PhaseTiming> *pass_timings = options.time_passes ? &result.pass_timings : nullptr;
  TimingInstrumentation<Graph> graph_timing(pass_timings);
  TimingInstrumentation<CircleModel> model_timing(pass_timings);
  std::unique_ptr<CircleModel> model;
  // The stages run in manifest order; resolved() guarantees ATen-level stages, then exactly one
  // lower stage, then Circle stages.
  for (auto &stage : pipeline.stages) { // pipeline is this conversion's own copy
    if (stage.kind == StageKind::Lower) {
      if (options.stop_before_lowering || options.stop_after_frontend)
        break;
      const LowerOptions lower =
          LowerOptions::from(Options::resolve("lower stage '" + stage.name + "'", LowerOptions::specs(), stage.options));
      auto lower_start = Clock::now();
      model = std::make_unique<CircleModel>(options.signatures.empty()
                                                ? serializeGraph(*graph, registry, lower)
                                                : lowerSignatures(*graph, registry, lower, options));
      addMetadata(*model, options.metadata);
      result.timings.push_back({"lowering", since(lower_start)});
      continue;
    }
    if (options.stop_after_frontend)
      continue;
    // Conditions look at the graph: as it is now, or as it was lowered for Circle stages.
    if (!stage.when.holds(*graph)) {
      TICO_INFO << "stage '" << stage.name << "' skipped (condition " << stage.when.str() << " does not hold)";
      if (options.on_stage_skipped && stage.kind != StageKind::Circle)
        options.on_stage_skipped(stage.name, *graph);
      continue;
    }
    auto stage_start = Clock::now();
    if (stage.kind == StageKind::Circle) {
      if (stage_runs_incremental)
        passStateWrites(stage, result.state_writes);
      bool changed = runStage(registry, stage, *model, verify_each, &model_timing, options.verify_circle);
      result.timings.push_back({"circle stage " + stage.name, since(stage_start)});
      TICO_INFO << "Circle stage '" << stage.name << "' " << (changed ? "changed the model" : "made no change");
      continue;
    }
    bool changed = runStage(registry, stage, *graph, verify_each, &graph_timing, &calibration,
                            &result.quantizer_metrics);
    result.timings.push_back({"stage " + stage.name, since(stage_start)});
    TICO_INFO << "stage '" << stage.name << "' " << (changed ? "changed the graph" : "made no change");
    if (options.dump_ir)
      options.dump_ir("after stage " + stage.name, printGraph(*graph));
    if (options.on_stage)
      options.on_stage("stage " + stage.name, *graph);
    noteStateWrites(*graph, result.state_writes);
  }
  if (!model) {
    result.graph = std::move(graph);
    return result;
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
