// One conversion, end to end: frontend -> the manifest's stages in their order (ATen-level
// stages, the lower stage, Circle stages) -> file.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/specialize.h"
#include "tico/pass/pass_manager.h"
#include "tico/ir/graph.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/registry.h"

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tico {

// Calibration for quantize stages (docs/quantizers.md): where the data comes from and how the
// layer-wise run behaves.
struct CalibrationSetup {
  // The manifest's calibration block with command-line overrides applied; a relative path is
  // taken as given (the driver resolves the manifest's against the manifest's directory).
  CalibrationConfig config;
  std::string model_path;     // for the example-inputs source
  bool progress = true;       // report calibration progress on stderr
  bool progress_bar = false;  // as a redrawn bar (stderr is a terminal) rather than lines
  // Batches held by the caller (the Python package's in-memory calibration): when set, quantize
  // stages calibrate on what it returns for the graph's inputs instead of opening a source
  // plugin, and the config's path and source are not consulted.
  std::function<std::unique_ptr<CalibrationSource>(const std::vector<CalibrationInput> &inputs)> in_memory;
};

// Opens the calibration source `config` names: config.source, or a "SOURCE:" prefix of the
// path naming a registered source, or else the first source (by name) whose accepts() takes
// the path. Throws tico::Error listing the sources when none applies.
std::unique_ptr<CalibrationSource> openCalibrationSource(const Registry &registry, const CalibrationSetup &setup,
                                                         const Graph &graph);

// The file or folder that `config`'s calibration data is read from ([SOURCE:]PATH[,OPTION=VALUE...],
// or config.source with the path), or "" when it names none (example-inputs, random data). It is
// an input of the run like the model: tools refuse outputs that are it or lie inside it.
std::string calibrationDataPath(const Registry &registry, const CalibrationConfig &config);

// One signature of a multi-signature conversion: the graph lowered with some dynamic input
// dimensions fixed (tico/ir/specialize.h), as the subgraph and SignatureDef `name`.
struct SignatureRequest {
  std::string name;
  std::vector<InputDimSize> sizes;
};

// Parses "NAME:INPUT.DIM=SIZE[,INPUT.DIM=SIZE...]" (tico-run --signature). Throws tico::Error
// saying what is malformed.
SignatureRequest parseSignatureRequest(const std::string &text);

struct ConversionOptions {
  // The model file; with input_bytes, the name that stands for it in messages.
  std::string input_path;
  // The model's file image in memory, read instead of input_path (no file is touched). The
  // frontend named by input_frontend reads it, or, when that is empty, the one whose extension
  // matches input_path.
  std::shared_ptr<const Storage> input_bytes;
  std::string input_frontend;
  std::string output_path; // empty: do not write
  // Print the IR after the frontend and after each stage to this stream callback.
  std::function<void(const std::string &title, const std::string &ir)> dump_ir;
  // Called with the graph after the frontend and after each ATen-level stage (graph pictures).
  std::function<void(const std::string &title, const Graph &graph)> on_stage;
  // Called instead of on_stage for an ATen-level stage whose condition did not hold, with the
  // graph the stage would have seen (unchanged): `tico-run --evaluate-after` a skipped stage.
  std::function<void(const std::string &stage, const Graph &graph)> on_stage_skipped;
  // Verify the graph (or the Circle model) after every pass (also switched on by the
  // manifest's verify_each).
  bool verify_each = false;
  // With verify_each, the check run on the Circle model after every Circle pass (the core has
  // no Circle verifier; tico-run passes libtico-circle's). Empty: Circle models are not checked.
  std::function<void(const CircleModel &)> verify_circle;
  // Stop at the lower stage: run the ATen-level stages only (--evaluate, --emit tir).
  bool stop_before_lowering = false;
  // Stop right after the frontend (no stage runs).
  bool stop_after_frontend = false;
  // Record the time of every pass (ConversionResult::pass_timings).
  bool time_passes = false;
  // An already loaded graph to convert instead of reading input_path (e.g. parsed .tir).
  std::unique_ptr<Graph> graph;
  // Calibration for quantize stages. Its config is merged over the manifest's calibration
  // block (the command line wins), so only what the user gave needs setting.
  CalibrationSetup calibration;
  // Empty: one subgraph, as the graph is. Otherwise every ATen-level stage runs once on the
  // (dynamic) graph, quantizers and their calibration included, and the lower stage lowers one
  // specialization per request; the parts become one model with a subgraph and a SignatureDef
  // each, weights stored once (tico/circle/signatures.h), before the Circle stages run on it.
  std::vector<SignatureRequest> signatures;
  // Names for the outputs in every SignatureDef, in output order (empty: the tensor names).
  std::vector<std::string> signature_output_names;
  // Extra metadata entries (name, bytes) of the Circle file, e.g. an LLM's tokenizer.
  std::vector<std::pair<std::string, std::vector<std::byte>>> metadata;
};

struct PhaseTiming {
  std::string phase;
  std::chrono::nanoseconds elapsed{};
};

struct ConversionResult {
  std::unique_ptr<Graph> graph;     // the graph after the ATen-level stages
  std::unique_ptr<CircleModel> model; // null when stop_before_lowering
  std::vector<PhaseTiming> timings;      // frontend, each stage, lowering, Circle stages, write
  std::vector<PhaseTiming> pass_timings; // with time_passes: one entry per pass execution
  std::vector<QuantizerMetric> quantizer_metrics; // what quantizers reported (per-layer losses, ...)
  // The buffers and inputs the program writes: the targets of the mutation outputs seen after
  // the frontend or any ATen-level stage. state-writes drops them before lowering, so a Circle
  // model has no trace of them; incremental strategies must refuse to skip them.
  std::set<std::string> state_writes;
};

// Runs one ATen-level stage (kind passes or quantize) on `graph` through a PassManager with the
// stage's strategy; returns true when the graph changed. The options are taken as written:
// config aliases are applied by Manifest::resolved().
// Quantize stages calibrate with `calibration` (null: a quantizer that needs data fails with an
// error saying how to give it) and add what quantizers report to `metrics` (may be null).
bool runStage(const Registry &registry, const Stage &stage, Graph &graph, bool verify_each = false,
              PassInstrumentation *instrumentation = nullptr, const CalibrationSetup *calibration = nullptr,
              std::vector<QuantizerMetric> *metrics = nullptr);
// Runs one Circle stage on `model` through a CirclePassManager; returns true when it changed.
// With verify_each, `verifier` checks the model after every pass (none: not checked).
bool runStage(const Registry &registry, const Stage &stage, CircleModel &model, bool verify_each = false,
              CirclePassInstrumentation *instrumentation = nullptr,
              const std::function<void(const CircleModel &)> &verifier = {});

// Runs manifest.resolved(). Throws tico::Error (including UnsupportedOpsError); never leaves a
// partial output file.
ConversionResult convert(const Registry &registry, const Manifest &manifest,
                         const ConversionOptions &options);

// Loads `path` with the frontend that claims it (by sniffing, then by extension).
std::unique_ptr<Graph> loadModel(const Registry &registry, const std::string &path);
// Loads a model image held in memory with the frontend called `frontend` (or, when empty, the
// one registered for the extension of `name`); `name` stands for the file in messages.
std::unique_ptr<Graph> loadModel(const Registry &registry, std::shared_ptr<const Storage> image,
                                 const std::string &name, const std::string &frontend = {});

} // namespace tico
