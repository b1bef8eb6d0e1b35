// Runtime tensors of the interpreter: a dtype, a concrete shape and contiguous row-major bytes.
//
// A tensor either owns a fresh buffer (kernel outputs) or views bytes somebody else keeps alive
// (model constants, caller inputs, reshaped aliases); `owner` holds that lifetime in both cases.
// Kernels only ever write into buffers they allocated themselves, so aliases are always safe.
#pragma once

#include "tico/ir/dtype.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tico::interp {

using Shape = std::vector<int64_t>;

int64_t numElements(const Shape &shape);
std::string shapeString(const Shape &shape);  // "[2, 3]"
std::string dtypeString(DType dtype);          // "float32", "int64", ...

struct Tensor {
  DType dtype = DType::Unknown;
  Shape shape;
  std::shared_ptr<const void> owner;
  std::byte *data = nullptr; // null only for tensors without elements

  bool defined() const { return dtype != DType::Unknown; }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const { return numElements(shape); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * elementSize(dtype); }
  int64_t dim(int64_t axis) const { return shape.at(static_cast<std::size_t>(axis)); }

  template <typename T> const T *as() const { return reinterpret_cast<const T *>(data); }
  template <typename T> T *mut() { return reinterpret_cast<T *>(data); }
};

// A fresh, uninitialised, 64-byte aligned buffer for `shape`.
Tensor allocate(DType dtype, Shape shape);
// The same bytes under another shape (same element count): RESHAPE and friends copy nothing.
Tensor alias(const Tensor &source, Shape shape);
// A view of bytes kept alive by `owner`.
Tensor view(DType dtype, Shape shape, const std::byte *data, std::shared_ptr<const void> owner);

// Reads element `index` of an integer tensor (int32, int64, int16, int8, uint8) as int64.
int64_t integerAt(const Tensor &tensor, int64_t index);
// All elements of an integer tensor as int64 (shape vectors, axes, paddings, ...).
std::vector<int64_t> integerValues(const Tensor &tensor);
// Element `index` of a numeric tensor as double (scalars: FILL values, RANGE bounds, ...).
double numberAt(const Tensor &tensor, int64_t index);

// Row-major contiguous strides (in elements).
std::vector<int64_t> contiguousStrides(const Shape &shape);

} // namespace tico::interp
