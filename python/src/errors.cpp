#include "errors.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace tico::python {
namespace {

nb::object errorClass(const char *kind) { return nb::module_::import_("tico_native.errors").attr(kind); }

[[noreturn]] void raiseInstance(const nb::object &cls, const nb::object &instance) {
  PyErr_SetObject(cls.ptr(), instance.ptr());
  throw nb::python_error();
}

} // namespace

namespace {

nb::str decodeUtf8(const std::string &bytes, const char *errors) {
  PyObject *decoded = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), errors);
  if (!decoded)
    throw nb::python_error();
  return nb::steal<nb::str>(decoded);
}

} // namespace

nb::str decodedText(const std::string &text) { return decodeUtf8(text, "backslashreplace"); }

nb::str decodedName(const std::string &name) { return decodeUtf8(name, "surrogateescape"); }

void throwPython(const char *kind, const std::string &message) {
  nb::object cls = errorClass(kind);
  raiseInstance(cls, cls(decodedText(message)));
}

const std::string &requireNoNul(const std::string &path, const char *what) {
  if (path.find('\0') != std::string::npos)
    throw nb::value_error((std::string(what) + ": embedded null byte").c_str());
  return path;
}

void throwUnsupported(const UnsupportedOpsError &error) {
  nb::object cls = errorClass("UnsupportedOpsError");
  nb::object op_class = errorClass("UnsupportedOp");
  nb::list ops;
  for (const auto &op : error.ops()) {
    nb::list nodes;
    for (const auto &name : op.node_names)
      nodes.append(decodedText(name));
    ops.append(op_class(op.op.str(), op.count, nodes, op.reason));
  }
  const std::string message = error.what();
  raiseInstance(cls, cls(decodedText(message), ops));
}

} // namespace tico::python
