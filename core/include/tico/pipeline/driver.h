// One conversion, end to end: frontend -> the manifest's stages in their order (ATen-level
// stages, the lower stage, Circle stages) -> file.
#pragma once

#include "tico/circle/model.h"
#include "tico/pass/pass_manager.h"
#include "tico/ir/graph.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/registry.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

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
};

// Runs one ATen-level stage (kind passes or quantize) on `graph` through a PassManager with the
// stage's strategy; returns true when the graph changed. The options are taken as written:
// config aliases are applied by Manifest::resolved().
bool runStage(const Registry &registry, const Stage &stage, Graph &graph, bool verify_each = false,
              PassInstrumentation *instrumentation = nullptr);
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
