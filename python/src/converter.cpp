#include "converter.h"

#include "circle_model.h"

#include "errors.h"
#include "python_keepalive.h"

#include "tico/circle/writer.h"
#include "tico/circle/verify.h"
#include "tico/pipeline/compile_config.h"
#include "tico/pipeline/incremental.h"
#include "tico/pipeline/manifest.h"
#include "tico/support/file.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <nanobind/ndarray.h>

#include <algorithm>
#include <map>
#include <optional>

namespace nb = nanobind;

namespace tico::python {
namespace {

// Applies a {field: bool} dict onto the manifest's config block, the aliases of pass options
// (docs/pipeline.md): the fields override the manifest's, explicit pass options still win.
// Unknown fields and values that are not bool are errors (ConfigError) listing what is accepted.
void applyConfig(nb::dict config, CompileConfig &target) {
  const auto &fields = CompileConfig::fieldNames();
  std::string known;
  for (const auto &f : fields)
    known += (known.empty() ? "" : ", ") + f;
  for (auto [key, value] : config) {
    if (!nb::isinstance<nb::str>(key))
      throwPython("ConfigError", "config keys must be str, got " + std::string(nb::type_name(key.type()).c_str()));
    const std::string field = nb::cast<std::string>(key);
    if (std::find(fields.begin(), fields.end(), field) == fields.end())
      throwPython("ConfigError", "unknown config key '" + field + "'" + didYouMean(field, fields) + "; valid keys: " + known);
    if (!nb::isinstance<nb::bool_>(value))
      throwPython("ConfigError", "config key '" + field + "' must be True or False, got " +
                               nb::cast<std::string>(nb::repr(value)));
    target.set(field, nb::cast<bool>(value));
  }
}

// The options tico_native.convert checked (names and types) as an IncrementalRequest.
IncrementalRequest incrementalRequest(nb::dict given) {
  IncrementalRequest request;
  for (auto [key, value] : given) {
    const std::string name = nb::cast<std::string>(key);
    if (name == "groups")
      request.groups = nb::cast<std::vector<std::string>>(value);
    else if (name == "max_strategies")
      request.max_strategies = nb::cast<int64_t>(value);
    else if (name == "budget")
      request.budget = nb::cast<int64_t>(value);
    else if (name == "fused")
      request.fused = nb::cast<bool>(value);
    else
      throwPython("ConfigError", "unknown incremental option '" + name + "'");
  }
  return request;
}

// Calibration batches the caller holds: one tensor per graph input per batch, copied when the
// conversion starts (the GIL is released while it runs). Arrays given as the same Python object
// share one copy: an LLM's zero caches are the same for every batch.
class InMemoryCalibration : public CalibrationSource {
public:
  explicit InMemoryCalibration(std::vector<CalibrationBatch> batches) : batches_(std::move(batches)) {}
  std::size_t size() const override { return batches_.size(); }
  CalibrationBatch batch(std::size_t index) override { return batches_.at(index); }
  std::string describe() const override { return "in-memory batches (" + std::to_string(batches_.size()) + ")"; }

private:
  std::vector<CalibrationBatch> batches_;
};

std::shared_ptr<const TensorData> ownedCopy(nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig> array, std::size_t batch,
                                            std::size_t input) {
  const std::optional<DType> dtype = dtypeOf(array.dtype());
  if (!dtype)
    throwPython("ConfigError", "calibration batch " + std::to_string(batch) + " input " + std::to_string(input) +
                                   " has an element type tico does not know");
  std::vector<int64_t> sizes;
  for (std::size_t d = 0; d < array.ndim(); ++d)
    sizes.push_back(static_cast<int64_t>(array.shape(d)));
  const auto *begin = static_cast<const std::byte *>(array.data());
  return std::make_shared<const TensorData>(
      TensorData::fromBytes(*dtype, std::move(sizes), std::vector<std::byte>(begin, begin + array.nbytes())));
}

std::vector<CalibrationBatch> calibrationBatches(nb::handle given) {
  std::vector<CalibrationBatch> batches;
  std::map<PyObject *, std::shared_ptr<const TensorData>> copies;
  std::size_t b = 0;
  for (nb::handle batch : given) {
    CalibrationBatch tensors;
    std::size_t i = 0;
    for (nb::handle array : batch) {
      auto &copy = copies[array.ptr()];
      if (!copy)
        copy = ownedCopy(nb::cast<nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>>(array), b, i);
      tensors.push_back(copy);
      ++i;
    }
    batches.push_back(std::move(tensors));
    ++b;
  }
  if (batches.empty())
    throwPython("ConfigError", "calibration: the list of batches is empty");
  return batches;
}

std::vector<std::byte> bytesOf(nb::handle value) {
  const nb::bytes b = nb::cast<nb::bytes>(value);
  const auto *begin = reinterpret_cast<const std::byte *>(b.c_str());
  return std::vector<std::byte>(begin, begin + b.size());
}

struct ExtraPaths {
  std::string recipe; // a quantization recipe to insert
  std::string output; // write the Circle file here instead of returning its bytes
  nb::object metrics; // a list that receives the quantizers' (subject, metric, value) reports
};

// The "extra" options (see converter.h) onto the conversion options.
ExtraPaths applyExtra(nb::dict extra, ConversionOptions &options) {
  ExtraPaths paths;
  for (auto [key, value] : extra) {
    const std::string name = nb::cast<std::string>(key);
    if (name == "quant") {
      paths.recipe = requireNoNul(nb::cast<std::string>(value), "quant");
    } else if (name == "output") {
      paths.output = requireNoNul(nb::cast<std::string>(value), "output");
    } else if (name == "metrics") {
      if (!nb::isinstance<nb::list>(value))
        throwPython("ConfigError", "the 'metrics' option takes a list to fill");
      paths.metrics = nb::borrow(value);
    } else if (name == "progress") {
      options.calibration.progress = nb::cast<bool>(value);
    } else if (name == "calibration") {
      CalibrationConfig &config = options.calibration.config;
      config.where = {"tico_native", 0, 0};
      for (auto [ckey, cvalue] : nb::cast<nb::dict>(value)) {
        const std::string field = nb::cast<std::string>(ckey);
        if (field == "batches") {
          auto batches = std::make_shared<std::vector<CalibrationBatch>>(calibrationBatches(cvalue));
          options.calibration.in_memory = [batches](const std::vector<CalibrationInput> &) {
            return std::make_unique<InMemoryCalibration>(*batches);
          };
        } else if (field == "path") {
          config.path = requireNoNul(nb::cast<std::string>(cvalue), "calibration path");
        } else if (field == "source") {
          config.source = nb::cast<std::string>(cvalue);
        } else if (field == "limit") {
          config.batches = nb::cast<std::size_t>(cvalue);
        } else if (field == "seed") {
          config.seed = nb::cast<uint64_t>(cvalue);
        } else if (field == "memory_budget") {
          config.memory_budget = nb::cast<uint64_t>(cvalue);
        } else {
          throwPython("ConfigError", "unknown calibration option '" + field + "'");
        }
      }
    } else if (name == "signatures") {
      for (nb::handle entry : value) {
        nb::tuple pair = nb::cast<nb::tuple>(entry);
        SignatureRequest request{nb::cast<std::string>(pair[0]), {}};
        try {
          for (const std::string &size : nb::cast<std::vector<std::string>>(pair[1]))
            request.sizes.push_back(parseInputDimSize(size));
        } catch (const Error &e) {
          throwPython("ConfigError", "signature '" + request.name + "': " + e.what());
        }
        options.signatures.push_back(std::move(request));
      }
    } else if (name == "signature_output_names") {
      options.signature_output_names = nb::cast<std::vector<std::string>>(value);
    } else if (name == "metadata") {
      for (nb::handle entry : value) {
        nb::tuple pair = nb::cast<nb::tuple>(entry);
        options.metadata.emplace_back(nb::cast<std::string>(pair[0]), bytesOf(pair[1]));
      }
    } else {
      throwPython("ConfigError", "unknown conversion option '" + name + "'");
    }
  }
  return paths;
}

// The output file must not destroy what the conversion reads: the model, the manifests, the
// recipe or the calibration data (a file, or a folder it may not land in). Checked before any
// work, as tico-run does.
void checkOutput(const Registry &registry, const std::string &output, const ConversionOptions &options,
                 const std::vector<std::string> &pipelines, const std::string &recipe, const Manifest &manifest) {
  std::vector<std::string> inputs(pipelines);
  inputs.push_back(recipe);
  if (!options.input_bytes)
    inputs.push_back(options.input_path);
  CalibrationConfig calibration = manifest.calibration;
  calibration.merge(options.calibration.config);
  const std::string data = options.calibration.in_memory ? std::string() : calibrationDataPath(registry, calibration);
  inputs.push_back(data);
  try {
    checkOutputTarget(output, inputs, /*force=*/false);
    checkOutputOutside(output, data, "calibration data folder");
  } catch (const Error &e) {
    throwPython("OutputError", e.what());
  }
}

} // namespace

Converter::Converter(const std::vector<std::string> &plugin_dirs) {
  try {
    plugins_.discover(registry_, plugin_dirs);
  } catch (const Error &e) {
    throwPython("PluginError", e.what());
  }
  if (registry_.frontends().empty()) {
    std::string dirs;
    for (const auto &d : plugin_dirs)
      dirs += (dirs.empty() ? "" : ", ") + d;
    throwPython("PluginError", "no frontend plugin was found in " + (dirs.empty() ? std::string("no directory") : dirs) +
                             "; the package is incomplete");
  }
}

std::vector<std::tuple<std::string, std::string, std::string>> Converter::plugins() const {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (const auto &p : plugins_.plugins())
    out.emplace_back(p.name, p.version, p.path);
  return out;
}

nb::bytes Converter::convertBytes(nb::handle archive, const std::string &name,
                                  const std::vector<std::string> &pipelines, nb::dict config, nb::object incremental,
                                  nb::dict extra) {
  ConversionOptions options;
  options.input_bytes = borrowBuffer(archive, "the .pt2 archive");
  options.input_path = name;
  options.input_frontend = "pt2";
  return convert(options, pipelines, config, incremental, extra);
}

nb::bytes Converter::convertFile(const std::string &path, const std::vector<std::string> &pipelines,
                                 nb::dict config, nb::object incremental, nb::dict extra) {
  ConversionOptions options;
  options.input_path = requireNoNul(path, "path");
  return convert(options, pipelines, config, incremental, extra);
}

nb::bytes Converter::convert(ConversionOptions &options, const std::vector<std::string> &pipelines,
                             nb::dict config, nb::object incremental, nb::dict extra) {
  if (pipelines.empty())
    throwPython("ManifestError", "no pipeline manifest given");
  for (const std::string &pipeline : pipelines)
    requireNoNul(pipeline, "pipeline");
  const ExtraPaths paths = applyExtra(extra, options);
  const std::string &recipe = paths.recipe;
  Manifest manifest;
  try {
    manifest = Manifest::load(pipelines.front());
    // Later manifests add their stages around lowering (e.g. circle-o1.yaml's Circle stages).
    for (std::size_t i = 1; i < pipelines.size(); ++i)
      manifest.append(Manifest::load(pipelines[i]));
    if (!recipe.empty())
      manifest.insertQuantization(Manifest::load(recipe));
  } catch (const Error &e) {
    throwPython("ManifestError", e.what());
  }
  applyConfig(config, manifest.config);
  std::optional<IncrementalRequest> request;
  if (!incremental.is_none()) {
    request = incrementalRequest(nb::cast<nb::dict>(incremental));
    if (!options.input_bytes) // a file on disk: its example inputs also validate the strategies
      request->example_inputs = options.input_path;
    exposeStateWrites(manifest);
  }
  try {
    manifest.validate(registry_);
  } catch (const Error &e) {
    throwPython("ManifestError", e.what());
  }
  if (!paths.output.empty())
    checkOutput(registry_, paths.output, options, pipelines, recipe, manifest);

  // The Circle file goes straight into the bytes object that is returned: its size is known
  // once the model is laid out, so the object is allocated then and filled in place.
  PyObject *result = nullptr;
  std::vector<QuantizerMetric> metrics;
  std::optional<UnsupportedOpsError> unsupported;
  std::optional<std::string> failure;
  {
    nb::gil_scoped_release released;
    std::lock_guard lock(mutex_);
    try {
      ConversionResult converted = tico::convert(registry_, manifest, options);
      metrics = std::move(converted.quantizer_metrics);
      if (request) {
        request->state_writes.assign(converted.state_writes.begin(), converted.state_writes.end());
        addIncrementalStrategies(registry_, *converted.model, *request, requireValidCircleModel);
      }
      if (!paths.output.empty()) {
        writeCircleFile(*converted.model, paths.output); // atomic: all or nothing
        nb::gil_scoped_acquire gil;
        result = PyBytes_FromStringAndSize(nullptr, 0);
      } else {
        serializeCircleInto(*converted.model, [&](std::size_t size) -> std::byte * {
          nb::gil_scoped_acquire gil;
          result = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
          if (result == nullptr) {
            PyErr_Clear();
            throw Error("cannot serialize Circle model: no memory for " + std::to_string(size) + " bytes");
          }
          return reinterpret_cast<std::byte *>(PyBytes_AS_STRING(result));
        });
      }
      // The graph (whose constants view the caller's archive) is released here, before the
      // GIL is taken back; the buffer's owner takes the GIL itself to let go of it.
    } catch (const UnsupportedOpsError &e) {
      unsupported.emplace(e);
    } catch (const Error &e) {
      failure = e.what();
    } catch (const std::exception &e) {
      failure = std::string("internal error: ") + e.what();
    }
  }
  options.input_bytes.reset();
  if (unsupported || failure) {
    Py_XDECREF(result);
    if (unsupported)
      throwUnsupported(*unsupported);
    throwPython("ConversionError", *failure);
  }
  if (paths.metrics.is_valid()) {
    nb::list sink = nb::borrow<nb::list>(paths.metrics);
    for (const QuantizerMetric &m : metrics)
      sink.append(nb::make_tuple(m.subject, m.metric, m.value));
  }
  return nb::steal<nb::bytes>(result);
}

} // namespace tico::python
