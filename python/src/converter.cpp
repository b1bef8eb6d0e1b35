#include "converter.h"

#include "errors.h"
#include "python_keepalive.h"

#include "tico/circle/writer.h"
#include "tico/circle/verify.h"
#include "tico/pipeline/compile_config.h"
#include "tico/pipeline/incremental.h"
#include "tico/pipeline/manifest.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
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
                                  const std::vector<std::string> &pipelines, nb::dict config, nb::object incremental) {
  ConversionOptions options;
  options.input_bytes = borrowBuffer(archive, "the .pt2 archive");
  options.input_path = name;
  options.input_frontend = "pt2";
  return convert(options, pipelines, config, incremental);
}

nb::bytes Converter::convertFile(const std::string &path, const std::vector<std::string> &pipelines,
                                 nb::dict config, nb::object incremental) {
  ConversionOptions options;
  options.input_path = path;
  return convert(options, pipelines, config, incremental);
}

nb::bytes Converter::convert(ConversionOptions &options, const std::vector<std::string> &pipelines,
                             nb::dict config, nb::object incremental) {
  if (pipelines.empty())
    throwPython("ManifestError", "no pipeline manifest given");
  Manifest manifest;
  try {
    manifest = Manifest::load(pipelines.front());
    // Later manifests add their stages around lowering (e.g. circle-o1.yaml's Circle stages).
    for (std::size_t i = 1; i < pipelines.size(); ++i)
      manifest.append(Manifest::load(pipelines[i]));
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

  // The Circle file goes straight into the bytes object that is returned: its size is known
  // once the model is laid out, so the object is allocated then and filled in place.
  PyObject *result = nullptr;
  std::optional<UnsupportedOpsError> unsupported;
  std::optional<std::string> failure;
  {
    nb::gil_scoped_release released;
    std::lock_guard lock(mutex_);
    try {
      ConversionResult converted = tico::convert(registry_, manifest, options);
      if (request) {
        request->state_writes.assign(converted.state_writes.begin(), converted.state_writes.end());
        addIncrementalStrategies(registry_, *converted.model, *request, requireValidCircleModel);
      }
      serializeCircleInto(*converted.model, [&](std::size_t size) -> std::byte * {
        nb::gil_scoped_acquire gil;
        result = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
        if (result == nullptr) {
          PyErr_Clear();
          throw Error("cannot serialize Circle model: no memory for " + std::to_string(size) + " bytes");
        }
        return reinterpret_cast<std::byte *>(PyBytes_AS_STRING(result));
      });
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
  return nb::steal<nb::bytes>(result);
}

} // namespace tico::python
