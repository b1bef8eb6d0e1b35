#include "python_keepalive.h"

namespace nb = nanobind;

namespace tico::python {
namespace {

struct HeldBuffer {
  Py_buffer view{};
  ~HeldBuffer() {
    nb::gil_scoped_acquire gil;
    PyBuffer_Release(&view);
  }
};

} // namespace

std::shared_ptr<const Storage> borrowBuffer(nb::handle object, const std::string &what) {
  auto held = std::make_shared<HeldBuffer>();
  if (PyObject_GetBuffer(object.ptr(), &held->view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    throw nb::type_error((what + " must be bytes-like (an object with a contiguous buffer), got " +
                          nb::type_name(object.type()).c_str())
                             .c_str());
  }
  const auto *data = static_cast<const std::byte *>(held->view.buf);
  const auto size = static_cast<std::size_t>(held->view.len);
  return Storage::fromExternal(data, size, std::move(held));
}

} // namespace tico::python
