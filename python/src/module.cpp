// _tico_native: the C++ half of the tico_native package. The Python half (tico_native/*.py)
// exports torch programs, finds the packaged plugins and pipelines, and shapes the API after
// the original converter; this module converts and runs models.
#include "circle_model.h"
#include "converter.h"

#include "tico/support/log.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_tico_native, m) {
  m.doc() = "tico's converter and Circle interpreter (use the tico_native package, not this module)";

  nb::class_<tico::python::Converter>(m, "Converter")
      .def(nb::init<const std::vector<std::string> &>(), "plugin_dirs"_a)
      .def("convert_bytes", &tico::python::Converter::convertBytes, "archive"_a, "name"_a, "pipelines"_a,
           "config"_a, "incremental"_a = nb::none())
      .def("convert_file", &tico::python::Converter::convertFile, "path"_a, "pipelines"_a, "config"_a,
           "incremental"_a = nb::none())
      .def("plugins", &tico::python::Converter::plugins);

  nb::class_<tico::python::NativeCircleModel>(m, "NativeCircleModel")
      .def(nb::init<nb::bytes, std::string>(), "data"_a, "name"_a)
      .def("inputs", &tico::python::NativeCircleModel::inputs)
      .def("outputs", &tico::python::NativeCircleModel::outputs)
      .def("run", &tico::python::NativeCircleModel::run, "inputs"_a, "as_torch"_a)
      .def("inspect", &tico::python::NativeCircleModel::inspect, "tensors"_a = false, "operators"_a = false,
           "buffers"_a = false, "verify"_a = false, "as_json"_a = false)
      .def("incremental_manifest", &tico::python::NativeCircleModel::incrementalManifest);

  m.def(
      "set_log_level", [](int level) { tico::log::setLevel(static_cast<tico::log::Level>(level)); }, "level"_a,
      "TICO_LOG levels: 1 error, 2 warning, 3 info, 4 debug");
}
