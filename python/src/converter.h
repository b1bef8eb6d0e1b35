// The conversion entry of the Python package: plugins loaded once, then .pt2 archives (in
// memory or on disk) converted to Circle bytes.
#pragma once

#include "tico/pipeline/driver.h"
#include "tico/plugin/loader.h"
#include "tico/plugin/registry.h"

#include <nanobind/nanobind.h>

#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace tico::python {

class Converter {
public:
  // Loads the plugins of `plugin_dirs` (in order; a name found again later is skipped).
  explicit Converter(const std::vector<std::string> &plugin_dirs);

  // Converts the .pt2 archive held by `archive` (any object with the buffer protocol, viewed in
  // place: no copy, no temporary file) with the pipeline manifest at `pipelines[0]`, followed by
  // the stages of the others (the Circle O1 stages for circle_optimize), its config overridden
  // by `config` (field -> bool). `name` stands for the archive in messages.
  // Returns the Circle file's bytes.
  // `incremental`: None, or a dict of tico_native's checked incremental options (groups,
  // max_strategies, budget, fused): the strategies of docs/incremental.md are then added to the
  // file, as tico-run --incremental does.
  // `extra` (may be empty): what tico-run's other flags give, for the LLM export and Python
  // quantization: "quant" (a recipe manifest path), "calibration" ({"batches": [[array, ...],
  // ...]} in memory, or {"path": str, "source": str}; plus "limit", "seed", "memory_budget"),
  // "progress" (bool), "signatures" ([(name, ["input.dim=size", ...]), ...]),
  // "signature_output_names" ([str]), "metadata" ([(name, bytes), ...]), "output" (a path: the
  // file is written there, atomically, and empty bytes are returned), "metrics" (a list: the
  // quantizers' reports are appended as (subject, metric, value), e.g. GPTQ's per-layer error).
  nanobind::bytes convertBytes(nanobind::handle archive, const std::string &name,
                               const std::vector<std::string> &pipelines, nanobind::dict config,
                               nanobind::object incremental, nanobind::dict extra);
  // The same for a .pt2 file on disk (mapped, as tico-run reads it; its example inputs also
  // validate incremental strategies).
  nanobind::bytes convertFile(const std::string &path, const std::vector<std::string> &pipelines,
                              nanobind::dict config, nanobind::object incremental, nanobind::dict extra);

  // (name, version, path) of every loaded plugin.
  std::vector<std::tuple<std::string, std::string, std::string>> plugins() const;

private:
  nanobind::bytes convert(ConversionOptions &options, const std::vector<std::string> &pipelines,
                          nanobind::dict config, nanobind::object incremental, nanobind::dict extra);

  PluginSet plugins_;
  Registry registry_;
  // One conversion at a time: passes and plugins are not promised to be reentrant.
  std::mutex mutex_;
};

} // namespace tico::python
