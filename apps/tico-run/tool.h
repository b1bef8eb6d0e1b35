// Pieces of tico-run shared between its source files.
#pragma once

#include "tico/pipeline/driver.h"
#include "tico/plugin/loader.h"

#include <string>
#include <vector>

namespace tico::run {

void listPlugins(const PluginSet &plugins, const Registry &registry);
void listPasses(const Registry &registry);
void listOps(const Registry &registry);

struct EvaluateRequest {
  std::vector<std::string> inputs; // .npy files
  std::string output_dir;
};
// Runs `graph` with the registered evaluator and writes out<i>.npy files.
void evaluate(const Registry &registry, const Graph &graph, const EvaluateRequest &request);

} // namespace tico::run
