// Compile-time dispatch from a runtime dtype to a C++ element type: kernels are templates
// instantiated per type, and the switch happens once per operator, never per element.
#pragma once

#include "tensor.h"

#include "tico/support/error.h"

#include <cstdint>
#include <string>

namespace tico::interp {

template <typename T> struct TypeTag {
  using type = T;
};

// Bool tensors are bytes (0/1); reading them as C++ bool would be undefined for other values.
using BoolByte = uint8_t;

[[noreturn]] inline void unsupportedType(DType dtype, const char *what) {
  throw Error(std::string(what) + " does not support " + dtypeString(dtype) + " tensors");
}

// float32, int32, int64: the arithmetic types of the converter's graphs.
template <typename F> decltype(auto) dispatchArithmetic(DType dtype, const char *what, F &&f) {
  switch (dtype) {
  case DType::Float32: return f(TypeTag<float>{});
  case DType::Int32: return f(TypeTag<int32_t>{});
  case DType::Int64: return f(TypeTag<int64_t>{});
  default: unsupportedType(dtype, what);
  }
}

// The arithmetic types plus the small integers, for cheap ops (comparisons, min/max, abs, ...).
template <typename F> decltype(auto) dispatchNumeric(DType dtype, const char *what, F &&f) {
  switch (dtype) {
  case DType::Float32: return f(TypeTag<float>{});
  case DType::Int32: return f(TypeTag<int32_t>{});
  case DType::Int64: return f(TypeTag<int64_t>{});
  case DType::Int16: return f(TypeTag<int16_t>{});
  case DType::Int8: return f(TypeTag<int8_t>{});
  case DType::UInt8: return f(TypeTag<uint8_t>{});
  default: unsupportedType(dtype, what);
  }
}

// Numeric types plus bool (as bytes): comparisons for equality, selects, casts.
template <typename F> decltype(auto) dispatchNumericOrBool(DType dtype, const char *what, F &&f) {
  if (dtype == DType::Bool)
    return f(TypeTag<BoolByte>{});
  return dispatchNumeric(dtype, what, std::forward<F>(f));
}

// Data movement only cares about the element width.
template <typename F> decltype(auto) dispatchBySize(DType dtype, F &&f) {
  switch (elementSize(dtype)) {
  case 1: return f(TypeTag<uint8_t>{});
  case 2: return f(TypeTag<uint16_t>{});
  case 4: return f(TypeTag<uint32_t>{});
  case 8: return f(TypeTag<uint64_t>{});
  default: unsupportedType(dtype, "data movement");
  }
}

} // namespace tico::interp
