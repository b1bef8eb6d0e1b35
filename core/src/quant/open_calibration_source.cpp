// Choosing the calibration source for a quantize stage (tico/pipeline/driver.h).
#include "tico/pipeline/driver.h"

#include "tico/ir/sym_expr.h"
#include "tico/support/error.h"

#include <filesystem>

namespace tico {
namespace {

// The graph's user inputs as sources see them. A symbolic dimension that calibration.dims sizes
// (its expression evaluates with them) is given as that size, so sources that make up data
// (random, token-ids) use it; the others stay -1.
std::vector<CalibrationInput> describeInputs(const Graph &graph, const std::map<std::string, int64_t> &dims) {
  std::vector<CalibrationInput> inputs;
  for (const Value *v : graph.userInputs()) {
    CalibrationInput in;
    in.name = v->name();
    in.dtype = v->dtype();
    in.is_scalar = !v->isTensor();
    if (v->isTensor())
      for (const Dim &d : v->shape()) {
        std::optional<int64_t> size;
        if (d.isSymbolic() && !dims.empty())
          size = SymExpr::parse(d.expr()).evaluate(dims);
        in.shape.push_back(d.isStatic() ? d.value() : size.value_or(-1));
      }
    inputs.push_back(std::move(in));
  }
  return inputs;
}

std::string sourceList(const Registry &registry) {
  std::string list;
  for (const auto &[name, entry] : registry.calibrationSources())
    list += "\n  " + name + ": " + entry.spec.summary;
  return list.empty() ? std::string(" (no calibration source plugin is loaded; the bundled one is calibration-sources)")
                      : ":" + list;
}

} // namespace

std::unique_ptr<CalibrationSource> openCalibrationSource(const Registry &registry, const CalibrationSetup &setup,
                                                         const Graph &graph) {
  if (setup.in_memory)
    return setup.in_memory(describeInputs(graph, setup.config.dims));
  std::string source = setup.config.source;
  std::string location = setup.config.path;
  if (source.empty()) {
    // "npz:data.bin" names the source; a path whose prefix is no source keeps its colon.
    const auto colon = location.find(':');
    if (colon != std::string::npos && registry.findCalibrationSource(location.substr(0, colon))) {
      source = location.substr(0, colon);
      location = location.substr(colon + 1);
    }
  }
  const Registered<CalibrationSourceSpec> *chosen = nullptr;
  if (!source.empty()) {
    chosen = registry.findCalibrationSource(source);
    if (!chosen)
      throw Error("unknown calibration source '" + source + "'" +
                  didYouMean(source, registry.calibrationSourceNames()) + "; calibration sources" +
                  sourceList(registry));
  } else {
    for (const auto &[name, entry] : registry.calibrationSources())
      if (entry.spec.accepts(location)) {
        chosen = &entry;
        break;
      }
    if (!chosen)
      throw Error("no calibration source reads '" + location +
                  "'; name one as SOURCE:PATH (or calibration.source) among the calibration sources" +
                  sourceList(registry));
  }
  CalibrationRequest request;
  request.location = location;
  request.model_path = setup.model_path;
  request.inputs = describeInputs(graph, setup.config.dims);
  request.batches = setup.config.batches;
  request.seed = setup.config.seed.value_or(0);
  request.dims = setup.config.dims;
  std::unique_ptr<CalibrationSource> opened = chosen->spec.create(request);
  if (!opened)
    throw Error("calibration source '" + chosen->spec.name + "' from " + chosen->from.str() + " returned nothing");
  return opened;
}

std::string calibrationDataPath(const Registry &registry, const CalibrationConfig &config) {
  namespace fs = std::filesystem;
  std::string location = config.path;
  if (config.source.empty()) {
    const auto colon = location.find(':');
    if (colon != std::string::npos && registry.findCalibrationSource(location.substr(0, colon)))
      location = location.substr(colon + 1);
  }
  std::error_code ec;
  if (!location.empty() && fs::exists(location, ec))
    return location;
  // Options after the path ("tokens.bin,dtype=int32") are not part of it.
  const auto comma = location.find(',');
  if (comma != std::string::npos && fs::exists(location.substr(0, comma), ec))
    return location.substr(0, comma);
  return {};
}

} // namespace tico
