#include "tico/ir/dtype.h"

#include "tico/support/error.h"

#include <array>
#include <limits>
#include <string>

namespace tico {
namespace {
struct DTypeInfo {
  DType dtype;
  std::size_t size;
  std::string_view short_name;
  std::string_view torch_name;
};

constexpr std::array<DTypeInfo, 18> kInfo = {{
    {DType::Unknown, 0, "unknown", "unknown"},
    {DType::Bool, 1, "bool", "torch.bool"},
    {DType::UInt8, 1, "u8", "torch.uint8"},
    {DType::Int8, 1, "i8", "torch.int8"},
    {DType::Int16, 2, "i16", "torch.int16"},
    {DType::Int32, 4, "i32", "torch.int32"},
    {DType::Int64, 8, "i64", "torch.int64"},
    {DType::UInt16, 2, "u16", "torch.uint16"},
    {DType::UInt32, 4, "u32", "torch.uint32"},
    {DType::UInt64, 8, "u64", "torch.uint64"},
    {DType::Float16, 2, "f16", "torch.float16"},
    {DType::BFloat16, 2, "bf16", "torch.bfloat16"},
    {DType::Float32, 4, "f32", "torch.float32"},
    {DType::Float64, 8, "f64", "torch.float64"},
    {DType::Complex64, 8, "c64", "torch.complex64"},
    {DType::Complex128, 16, "c128", "torch.complex128"},
    {DType::UInt4, 1, "u4", "torch.uint4"},
    {DType::Int4, 1, "i4", "torch.int4"},
}};

const DTypeInfo &info(DType dtype) {
  auto index = static_cast<std::size_t>(dtype);
  return index < kInfo.size() ? kInfo[index] : kInfo[0];
}
} // namespace

std::size_t elementSize(DType dtype) { return info(dtype).size; }

std::size_t bitWidth(DType dtype) {
  if (dtype == DType::UInt4 || dtype == DType::Int4)
    return 4;
  return 8 * elementSize(dtype);
}
std::string_view dtypeName(DType dtype) { return info(dtype).short_name; }
std::string_view torchDTypeName(DType dtype) { return info(dtype).torch_name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const auto &i : kInfo)
    if (i.short_name == name && i.dtype != DType::Unknown)
      return i.dtype;
  return std::nullopt;
}

bool isFloating(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 ||
         dtype == DType::Float64;
}

bool isInteger(DType dtype) {
  switch (dtype) {
  case DType::UInt8:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
  case DType::UInt4:
  case DType::Int4:
    return true;
  default:
    return false;
  }
}

bool isQuantizedDType(DType dtype) {
  switch (dtype) {
  case DType::UInt4:
  case DType::Int4:
  case DType::UInt8:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
    return true;
  default:
    return false;
  }
}

namespace {
void requireQuantized(DType dtype) {
  if (!isQuantizedDType(dtype))
    throw Error("element type '" + std::string(dtypeName(dtype)) + "' is not a quantized storage type");
}
} // namespace

int64_t qmin(DType dtype) {
  requireQuantized(dtype);
  switch (dtype) {
  case DType::Int4: return -8;
  case DType::Int8: return std::numeric_limits<int8_t>::min();
  case DType::Int16: return std::numeric_limits<int16_t>::min();
  case DType::Int32: return std::numeric_limits<int32_t>::min();
  case DType::Int64: return std::numeric_limits<int64_t>::min();
  default: return 0; // the unsigned types
  }
}

int64_t qmax(DType dtype) {
  requireQuantized(dtype);
  switch (dtype) {
  case DType::UInt4: return 15;
  case DType::Int4: return 7;
  case DType::UInt8: return std::numeric_limits<uint8_t>::max();
  case DType::Int8: return std::numeric_limits<int8_t>::max();
  case DType::Int16: return std::numeric_limits<int16_t>::max();
  case DType::Int32: return std::numeric_limits<int32_t>::max();
  default: return std::numeric_limits<int64_t>::max();
  }
}

} // namespace tico
