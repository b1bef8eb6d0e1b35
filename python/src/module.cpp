// _tico_native: the C++ half of the tico_native package. The Python half (tico_native/*.py)
// exports torch programs, finds the packaged plugins and pipelines, and shapes the API after
// the original converter; this module converts and runs models.
#include "circle_model.h"
#include "converter.h"

#include "errors.h"

#include "tico/support/file.h"
#include "tico/support/log.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_tico_native, m) {
  m.doc() = "tico's converter and Circle interpreter (use the tico_native package, not this module)";

  nb::class_<tico::python::Converter>(m, "Converter")
      .def(nb::init<const std::vector<std::string> &>(), "plugin_dirs"_a)
      .def("convert_bytes", &tico::python::Converter::convertBytes, "archive"_a, "name"_a, "pipelines"_a,
           "config"_a, "incremental"_a = nb::none(), "extra"_a = nb::dict())
      .def("convert_file", &tico::python::Converter::convertFile, "path"_a, "pipelines"_a, "config"_a,
           "incremental"_a = nb::none(), "extra"_a = nb::dict())
      .def("plugins", &tico::python::Converter::plugins);

  nb::class_<tico::python::NativeCircleModel>(m, "NativeCircleModel")
      .def(nb::init<nb::bytes, std::string>(), "data"_a, "name"_a)
      .def_static("from_file", &tico::python::NativeCircleModel::fromFile, "path"_a)
      .def("inputs", &tico::python::NativeCircleModel::inputs, "subgraph"_a = 0)
      .def("outputs", &tico::python::NativeCircleModel::outputs, "subgraph"_a = 0)
      .def("signatures", &tico::python::NativeCircleModel::signatures)
      .def("file_bytes", &tico::python::NativeCircleModel::fileBytes)
      .def("run", &tico::python::NativeCircleModel::run, "inputs"_a, "as_torch"_a, "subgraph"_a = 0)
      .def("llm_spec", &tico::python::NativeCircleModel::llmSpec)
      .def("tokenizer_json", &tico::python::NativeCircleModel::tokenizerJson)
      .def("generate", &tico::python::NativeCircleModel::generate, "prompt"_a, "max_new_tokens"_a, "temperature"_a,
           "top_k"_a, "top_p"_a, "seed"_a, "stop_at_eos"_a, "stop_ids"_a, "on_token"_a.none())
      .def("perplexity", &tico::python::NativeCircleModel::perplexity, "tokens"_a, "window"_a, "max_windows"_a, "bos"_a)
      .def("log_likelihood", &tico::python::NativeCircleModel::logLikelihood, "context"_a, "continuation"_a)
      .def("inspect", &tico::python::NativeCircleModel::inspect, "tensors"_a = false, "operators"_a = false,
           "buffers"_a = false, "verify"_a = false, "as_json"_a = false)
      .def("incremental_manifest", &tico::python::NativeCircleModel::incrementalManifest);

  nb::class_<tico::python::NativeTokenizer>(m, "NativeTokenizer")
      .def(nb::init<const std::string &>(), "json"_a)
      .def("encode", &tico::python::NativeTokenizer::encode, "text"_a, "add_special_tokens"_a = true)
      .def("decode", &tico::python::NativeTokenizer::decode, "ids"_a, "skip_special_tokens"_a = false)
      .def("vocab_size", &tico::python::NativeTokenizer::vocabSize)
      .def("bos_id", &tico::python::NativeTokenizer::bosId)
      .def("eos_id", &tico::python::NativeTokenizer::eosId);

  // CircleModel.save: the tools' writer (atomic replacement keeping the mode, links written
  // through, FIFOs and devices written in place, nothing left behind on failure).
  m.def(
      "write_file",
      [](const std::string &path, nb::bytes data) {
        tico::python::requireNoNul(path, "circle_path");
        const char *bytes = data.c_str();
        const std::size_t size = data.size();
        try {
          nb::gil_scoped_release unlocked; // data stays alive: the caller holds it
          tico::writeFileSafely(path, "Circle file",
                                [&](int fd) { tico::writeAll(fd, bytes, size, "Circle file", path); });
        } catch (const tico::Error &e) {
          tico::python::throwPython("OutputError", e.what());
        }
      },
      "path"_a, "data"_a);

  m.def(
      "set_log_level", [](int level) { tico::log::setLevel(static_cast<tico::log::Level>(level)); }, "level"_a,
      "TICO_LOG levels: 1 error, 2 warning, 3 info, 4 debug");
}
