// Python objects lent to tico without a copy.
//
// tico keeps borrowed bytes alive through a std::shared_ptr<const void> (Storage::fromExternal).
// These helpers make that owner a Python reference, released under the GIL whatever thread
// drops the last C++ reference (conversions run with the GIL released).
#pragma once

#include "tico/ir/tensor_data.h"

#include <nanobind/nanobind.h>

#include <memory>
#include <string>

namespace tico::python {

// The bytes of any object with the buffer protocol (bytes, memoryview of a BytesIO, numpy
// array, ...), as a Storage viewing them in place. The buffer is requested C-contiguous and
// released (under the GIL) when the last Storage view goes away. Throws nb::type_error for
// objects without a contiguous buffer.
std::shared_ptr<const Storage> borrowBuffer(nanobind::handle object, const std::string &what);

// A shared owner of `value` (a Python reference, an ndarray, ...) that destroys it under the GIL.
template <typename T> std::shared_ptr<const void> holdUnderGil(T value) {
  return std::shared_ptr<const void>(new T(std::move(value)), [](const void *p) {
    nanobind::gil_scoped_acquire gil;
    delete static_cast<const T *>(p);
  });
}

} // namespace tico::python
