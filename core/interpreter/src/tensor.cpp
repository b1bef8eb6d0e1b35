#include "tensor.h"

#include "buffer_pool.h"

#include "half.h"

#include "tico/support/checked.h"
#include "tico/support/error.h"

#include <cstdlib>
#include <new>

namespace tico::interp {

int64_t numElements(const Shape &shape) { return checkedElementCount(shape, "interpreter tensor"); }

std::string shapeString(const Shape &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string dtypeString(DType dtype) {
  switch (dtype) {
  case DType::Bool: return "bool";
  case DType::UInt8: return "uint8";
  case DType::Int8: return "int8";
  case DType::Int16: return "int16";
  case DType::Int32: return "int32";
  case DType::Int64: return "int64";
  case DType::UInt16: return "uint16";
  case DType::UInt32: return "uint32";
  case DType::UInt64: return "uint64";
  case DType::Float16: return "float16";
  case DType::BFloat16: return "bfloat16";
  case DType::Float32: return "float32";
  case DType::Float64: return "float64";
  case DType::Complex64: return "complex64";
  case DType::Complex128: return "complex128";
  case DType::Unknown: break;
  }
  return "unknown";
}

Tensor allocate(DType dtype, Shape shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  for (int64_t d : t.shape)
    if (d < 0)
      throw Error("negative dimension in shape " + shapeString(t.shape));
  const auto bytes = static_cast<std::size_t>(checkedByteSize(t.shape, elementSize(dtype), "interpreter tensor"));
  if (bytes > 0) {
    std::shared_ptr<std::byte> buffer = acquireBuffer(bytes); // aligned for vector loads, recycled when large
    t.data = buffer.get();
    t.owner = std::move(buffer);
  }
  return t;
}

Tensor alias(const Tensor &source, Shape shape) {
  Tensor t = source;
  t.shape = std::move(shape);
  return t;
}

Tensor view(DType dtype, Shape shape, const std::byte *data, std::shared_ptr<const void> owner) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  // Views are never written: kernels write only into buffers they allocate.
  t.data = const_cast<std::byte *>(data);
  t.owner = std::move(owner);
  return t;
}

int64_t integerAt(const Tensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::Int32: return t.as<int32_t>()[i];
  case DType::Int64: return t.as<int64_t>()[i];
  case DType::Int16: return t.as<int16_t>()[i];
  case DType::Int8: return t.as<int8_t>()[i];
  case DType::UInt8: return t.as<uint8_t>()[i];
  case DType::Bool: return t.as<uint8_t>()[i] != 0 ? 1 : 0; // bytes, never read as C++ bool
  default: break;
  }
  throw Error("expected an integer tensor, got " + dtypeString(t.dtype));
}

std::vector<int64_t> integerValues(const Tensor &t) {
  std::vector<int64_t> out(static_cast<std::size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i)
    out[static_cast<std::size_t>(i)] = integerAt(t, i);
  return out;
}

double numberAt(const Tensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::Float32: return t.as<float>()[i];
  case DType::Float64: return t.as<double>()[i];
  case DType::Float16: return halfToFloat(t.as<uint16_t>()[i]);
  case DType::BFloat16: return bfloat16ToFloat(t.as<uint16_t>()[i]);
  default: return static_cast<double>(integerAt(t, i));
  }
}

std::vector<int64_t> contiguousStrides(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

} // namespace tico::interp
