#include "tico/circle/model.h"

#include "tico/support/error.h"

#include <string>

namespace tico {

uint32_t CircleModel::operatorCodeIndex(circle::BuiltinOperator builtin, const std::string &custom_code) {
  const auto code = static_cast<int32_t>(builtin);
  for (std::size_t i = 0; i < operator_codes.size(); ++i)
    if (operator_codes[i].builtin_code == code && operator_codes[i].custom_code == custom_code)
      return static_cast<uint32_t>(i);
  operator_codes.push_back(CircleOperatorCode{code, custom_code, 1});
  return static_cast<uint32_t>(operator_codes.size() - 1);
}

uint32_t CircleModel::addBuffer(std::shared_ptr<const TensorData> data) {
  buffers.push_back(CircleBuffer{std::move(data)});
  return static_cast<uint32_t>(buffers.size() - 1);
}

uint64_t CircleModel::payloadBytes() const {
  uint64_t total = 0;
  for (const auto &buffer : buffers)
    if (buffer.data)
      total += buffer.data->nbytes();
  return total;
}

// Both directions are spelled out case by case: the enumerators of DType and TensorType are
// numbered independently and must never be converted by arithmetic.
circle::TensorType toCircleType(DType dtype) {
  switch (dtype) {
  case DType::Bool: return circle::TensorType::BOOL;
  case DType::UInt8: return circle::TensorType::UINT8;
  case DType::Int8: return circle::TensorType::INT8;
  case DType::Int16: return circle::TensorType::INT16;
  case DType::Int32: return circle::TensorType::INT32;
  case DType::Int64: return circle::TensorType::INT64;
  case DType::UInt16: return circle::TensorType::UINT16;
  case DType::UInt32: return circle::TensorType::UINT32;
  case DType::UInt64: return circle::TensorType::UINT64;
  case DType::Float16: return circle::TensorType::FLOAT16;
  case DType::BFloat16: return circle::TensorType::BFLOAT16;
  case DType::Float32: return circle::TensorType::FLOAT32;
  case DType::Float64: return circle::TensorType::FLOAT64;
  case DType::Complex64: return circle::TensorType::COMPLEX64;
  case DType::Complex128: return circle::TensorType::COMPLEX128;
  case DType::UInt4: return circle::TensorType::UINT4;
  case DType::Int4: return circle::TensorType::INT4;
  case DType::Unknown: break;
  }
  throw Error("element type '" + std::string(dtypeName(dtype)) + "' has no Circle tensor type");
}

DType fromCircleType(circle::TensorType type) {
  switch (type) {
  case circle::TensorType::BOOL: return DType::Bool;
  case circle::TensorType::UINT8: return DType::UInt8;
  case circle::TensorType::INT8: return DType::Int8;
  case circle::TensorType::INT16: return DType::Int16;
  case circle::TensorType::INT32: return DType::Int32;
  case circle::TensorType::INT64: return DType::Int64;
  case circle::TensorType::UINT16: return DType::UInt16;
  case circle::TensorType::UINT32: return DType::UInt32;
  case circle::TensorType::UINT64: return DType::UInt64;
  case circle::TensorType::FLOAT16: return DType::Float16;
  case circle::TensorType::BFLOAT16: return DType::BFloat16;
  case circle::TensorType::FLOAT32: return DType::Float32;
  case circle::TensorType::FLOAT64: return DType::Float64;
  case circle::TensorType::COMPLEX64: return DType::Complex64;
  case circle::TensorType::COMPLEX128: return DType::Complex128;
  case circle::TensorType::UINT4: return DType::UInt4;
  case circle::TensorType::INT4: return DType::Int4;
  default: break;
  }
  // Block-packed (GGML, MX), string and resource types have no element type in the IR. (UINT4
  // and INT4 do, but their payloads are packed: see tico/circle/quantization.h.)
  const char *name = circle::EnumNameTensorType(type);
  std::string spelled = (name && *name) ? name : std::to_string(static_cast<int>(type));
  throw Error("Circle tensor type " + spelled + " has no IR element type");
}

} // namespace tico
