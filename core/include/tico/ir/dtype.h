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
  // 4-bit integers (quantized weights). In IR memory (TensorData, constants) each element
  // takes one byte: Int4 as int8_t in [-8, 7], UInt4 as uint8_t in [0, 15]. Only the Circle
  // serializer packs them, two per byte.
  UInt4,
  Int4,
};

// Bytes per element in IR memory (0 for Unknown). 1 for the 4-bit types, which are stored
// unpacked; use bitWidth() for the packed width.
std::size_t elementSize(DType dtype);
// Bits per element in a packed file format: 4 for UInt4/Int4, 8 * elementSize otherwise.
std::size_t bitWidth(DType dtype);

// Short names used by the textual IR: "f32", "i64", "bool", "bf16", ...
std::string_view dtypeName(DType dtype);
std::optional<DType> parseDType(std::string_view name);

// Python spelling ("torch.float32"), for messages addressed to PyTorch users.
std::string_view torchDTypeName(DType dtype);

bool isFloating(DType dtype);
bool isInteger(DType dtype); // signed or unsigned integer types (4-bit ones too), not Bool

// Storage types a quantized tensor may have: uint4, int4, uint8, int8, int16, and int32 /
// int64 (quantized biases).
bool isQuantizedDType(DType dtype);
// The integer range of a quantized storage type ([-8, 7] for Int4, [0, 255] for UInt8, ...).
// Throws tico::Error for a type isQuantizedDType rejects.
int64_t qmin(DType dtype);
int64_t qmax(DType dtype);

} // namespace tico
