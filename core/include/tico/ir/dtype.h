// Element types of IR tensors.
//
// The enumerators are our own; mapping to PyTorch schema codes, c10 codes and Circle tensor
// types is done by name in the code that talks to each format, never by arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tico {

enum class DType : uint8_t {
  Unknown = 0,
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
};

// Bytes per element (0 for Unknown).
std::size_t elementSize(DType dtype);

// Short names used by the textual IR: "f32", "i64", "bool", "bf16", ...
std::string_view dtypeName(DType dtype);
std::optional<DType> parseDType(std::string_view name);

// Python spelling ("torch.float32"), for messages addressed to PyTorch users.
std::string_view torchDTypeName(DType dtype);

bool isFloating(DType dtype);
bool isInteger(DType dtype); // signed or unsigned integer types, not Bool

} // namespace tico
