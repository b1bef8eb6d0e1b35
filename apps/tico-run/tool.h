// Pieces of tico-run shared between its source files.
#pragma once

#include "tico/eval/evaluator.h"
#include "tico/pipeline/driver.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/loader.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tico::run {

void listPlugins(const PluginSet &plugins, const Registry &registry);
void listPasses(const Registry &registry);
void listOps(const Registry &registry);

struct EvaluateRequest {
  std::vector<std::string> inputs; // .npy files
  std::string output_dir;
  // --evaluate-after: where to run the graph: "frontend", the name of an ATen-level stage, or
  // "end" (after the last one). Empty: the end only, its files written to output_dir itself;
  // otherwise each point's files go to output_dir/<point>/.
  std::vector<std::string> points;
  std::vector<std::string> protected_files; // every input of the run: no out<i>.npy may be one
  bool force = false;                       // --force: replace read-only out<i>.npy files
};

// --evaluate: runs the graph with the registered evaluator at the requested points of the
// pipeline (hooked into ConversionOptions::on_stage / on_stage_skipped) and, once the last
// point has run, writes the out<i>.npy files of all of them: a failure writes none.
class Evaluation {
public:
  // Checks the points against `pipeline`'s stages and reads the --input files (regular files only).
  Evaluation(const Registry &registry, const Manifest &pipeline, EvaluateRequest request);
  // Only the frontend's graph is needed: no stage has to run.
  bool frontendOnly() const;
  // The graph after the frontend ("frontend") or after stage NAME ("stage NAME", or NAME for a
  // skipped stage).
  void afterStage(const std::string &title, const Graph &graph);
  // The graph after the ATen-level stages; then every point's files are written.
  void finish(const Graph &graph);

private:
  bool wants(const std::string &point) const;
  std::vector<EvalValue> run(const Graph &graph, const std::string &where) const;

  const Registered<EvaluatorSpec> *entry_ = nullptr;
  EvaluateRequest request_;
  std::vector<std::shared_ptr<const TensorData>> inputs_; // the --input files, read once
  std::map<std::string, std::vector<EvalValue>> results_; // by point ("" without --evaluate-after)
};

// The versioned JSON of every quantized tensor of `model` (tico-run --encodings).
std::string encodingsJson(const CircleModel &model, const std::vector<QuantizerMetric> &metrics,
                          const std::string &model_file);

// Where the manifest goes beside `output`: clip.circle -> clip.incremental.json.
std::string incrementalSidecarPath(const std::string &output);

// .tico_tmp/session_<timestamp>, the default folder for graph pictures.
std::string defaultGraphDumpDir();

// Writes one Graphviz picture per pipeline step into a folder.
class GraphDumper {
public:
  explicit GraphDumper(std::string dir);
  void dump(const std::string &title, const Graph &graph);

private:
  std::string dir_;
  std::string dot_; // path of Graphviz's dot, empty when not installed
  int index_ = 0;
};

} // namespace tico::run
