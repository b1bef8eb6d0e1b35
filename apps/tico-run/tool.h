// Pieces of tico-run shared between its source files.
#pragma once

#include "tico/pipeline/driver.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/loader.h"

#include <cstdint>
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
  std::vector<std::string> protected_files; // every input of the run: no out<i>.npy may be one
  bool force = false;                       // --force: replace read-only out<i>.npy files
};
// Runs `graph` with the registered evaluator and writes out<i>.npy files.
void evaluate(const Registry &registry, const Graph &graph, const EvaluateRequest &request);

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
