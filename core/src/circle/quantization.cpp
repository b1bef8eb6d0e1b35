#include "tico/circle/quantization.h"

#include "tico/support/error.h"

#include <cstdint>

namespace tico {

std::shared_ptr<const circle::QuantizationParametersT> toCircleQuantization(const QuantParams &q,
                                                                            const std::string &tensor_name) {
  if (q.isMx()) {
    // The tensor type says the format; the record only the dimension of the shared exponents.
    if (!q.axis || *q.axis < 0 || *q.axis > INT32_MAX)
      throw Error("tensor '" + tensor_name + "' is " + std::string(mxFormatName(*q.mx)) +
                  "-quantized without a valid axis");
    auto out = std::make_shared<circle::QuantizationParametersT>();
    out->quantized_dimension = static_cast<int32_t>(*q.axis);
    return out;
  }
  if (q.isPerBlock())
    throw Error("tensor '" + tensor_name + "' is quantized per block (axis " + std::to_string(q.axis.value_or(-1)) +
                ", block size " + std::to_string(*q.block_size) +
                "), which Circle's QuantizationParameters cannot express; quantize it per channel instead");
  auto out = std::make_shared<circle::QuantizationParametersT>();
  out->scale = q.scale;
  out->zero_point = q.zero_point;
  out->min = q.min;
  out->max = q.max;
  if (q.axis) {
    if (*q.axis < 0 || *q.axis > INT32_MAX)
      throw Error("tensor '" + tensor_name + "' has quantization axis " + std::to_string(*q.axis) +
                  ", which Circle's quantized_dimension cannot hold");
    out->quantized_dimension = static_cast<int32_t>(*q.axis);
  }
  return out;
}

circle::TensorType circleMxType(MxFormat format) {
  switch (format) {
  case MxFormat::Int8: return circle::TensorType::MXINT8;
  case MxFormat::Fp4: return circle::TensorType::MXFP4;
  }
  throw Error("unknown MX format");
}

std::optional<MxFormat> mxFormatOfCircleType(circle::TensorType type) {
  if (type == circle::TensorType::MXINT8)
    return MxFormat::Int8;
  if (type == circle::TensorType::MXFP4)
    return MxFormat::Fp4;
  return std::nullopt;
}

std::shared_ptr<const QuantParams> fromCircleQuantization(const circle::QuantizationParametersT &q,
                                                          const std::string &tensor_name) {
  if (q.details.type != circle::QuantizationDetails::NONE) {
    const char *kind = circle::EnumNameQuantizationDetails(q.details.type);
    throw Error("tensor '" + tensor_name + "' has " + (kind && *kind ? kind : "unknown") +
                " quantization details, which the IR's quantization parameters cannot hold");
  }
  if (q.scale.empty())
    return nullptr;
  auto out = std::make_shared<QuantParams>();
  out->scale = q.scale;
  out->zero_point = q.zero_point;
  out->min = q.min;
  out->max = q.max;
  if (q.scale.size() > 1)
    out->axis = q.quantized_dimension;
  return out;
}

bool sameCircleQuantization(const circle::QuantizationParametersT *a, const circle::QuantizationParametersT *b) {
  if (a == nullptr || b == nullptr)
    return a == b;
  if (a->details.type != circle::QuantizationDetails::NONE || b->details.type != circle::QuantizationDetails::NONE)
    return a == b; // details are opaque here: equal only when the record is shared
  return a->scale == b->scale && a->zero_point == b->zero_point && a->quantized_dimension == b->quantized_dimension &&
         a->min == b->min && a->max == b->max;
}

std::size_t packedInt4Bytes(std::size_t count) { return count / 2 + count % 2; }

std::vector<std::byte> packInt4(const TensorData &data, const std::string &tensor_name) {
  if (data.dtype != DType::UInt4 && data.dtype != DType::Int4)
    throw Error("tensor '" + tensor_name + "': cannot pack element type '" + std::string(dtypeName(data.dtype)) +
                "' into 4 bits");
  const std::vector<std::byte> values = data.contiguousBytes();
  const bool is_signed = data.dtype == DType::Int4;
  const int lo = is_signed ? -8 : 0, hi = is_signed ? 7 : 15;
  std::vector<std::byte> packed(packedInt4Bytes(values.size()), std::byte{0});
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto raw = static_cast<uint8_t>(values[i]);
    const int value = is_signed ? static_cast<int>(static_cast<int8_t>(raw)) : static_cast<int>(raw);
    if (value < lo || value > hi)
      throw Error("tensor '" + tensor_name + "' (" + std::string(dtypeName(data.dtype)) + ") holds " +
                  std::to_string(value) + " at element " + std::to_string(i) + ", outside [" + std::to_string(lo) +
                  ", " + std::to_string(hi) + "]");
    const auto nibble = static_cast<uint8_t>(raw & 0x0F); // two's complement low bits for Int4
    packed[i / 2] |= static_cast<std::byte>(i % 2 == 0 ? nibble : static_cast<uint8_t>(nibble << 4));
  }
  return packed;
}

std::vector<std::byte> unpackInt4(const std::byte *packed, std::size_t packed_size, std::size_t count, DType dtype) {
  if (dtype != DType::UInt4 && dtype != DType::Int4)
    throw Error("cannot unpack element type '" + std::string(dtypeName(dtype)) + "' from 4 bits");
  if (packed_size < packedInt4Bytes(count))
    throw Error("a packed 4-bit payload of " + std::to_string(count) + " elements needs " +
                std::to_string(packedInt4Bytes(count)) + " bytes, got " + std::to_string(packed_size));
  std::vector<std::byte> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto byte = static_cast<uint8_t>(packed[i / 2]);
    auto nibble = static_cast<uint8_t>(i % 2 == 0 ? byte & 0x0F : byte >> 4);
    if (dtype == DType::Int4 && (nibble & 0x08))
      nibble |= 0xF0; // sign-extend
    out[i] = static_cast<std::byte>(nibble);
  }
  return out;
}

} // namespace tico
