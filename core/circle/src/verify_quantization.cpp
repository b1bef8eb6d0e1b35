// Quantization rules: the QuantizationParameters record of every tensor is usable.
//
// An integer tensor without a record is fine: indices, shapes and raw integer model inputs
// carry none. What is checked is only what a record that exists says.

#include "verify_detail.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace tico::circle_verify {
namespace {

// The integer range of a quantized storage type; nullopt for types that hold no quantized
// integers (floats, bool, strings, block-packed types).
std::optional<std::pair<int64_t, int64_t>> integerRange(circle::TensorType type) {
  using T = circle::TensorType;
  switch (type) {
  case T::UINT4: return std::pair<int64_t, int64_t>{0, 15};
  case T::INT4: return std::pair<int64_t, int64_t>{-8, 7};
  case T::UINT8: return std::pair<int64_t, int64_t>{0, 255};
  case T::INT8: return std::pair<int64_t, int64_t>{-128, 127};
  case T::INT16: return std::pair<int64_t, int64_t>{INT16_MIN, INT16_MAX};
  case T::UINT16: return std::pair<int64_t, int64_t>{0, UINT16_MAX};
  case T::INT32: return std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
  case T::UINT32: return std::pair<int64_t, int64_t>{0, UINT32_MAX};
  case T::INT64:
  case T::UINT64: return std::pair<int64_t, int64_t>{INT64_MIN, INT64_MAX};
  default: return std::nullopt;
  }
}

bool isFloatType(circle::TensorType type) {
  using T = circle::TensorType;
  return type == T::FLOAT32 || type == T::FLOAT16 || type == T::BFLOAT16 || type == T::FLOAT64;
}

std::string typeName(circle::TensorType type) {
  const char *name = circle::EnumNameTensorType(type);
  return name && *name ? name : std::to_string(static_cast<int>(type));
}

bool isMxType(circle::TensorType type) {
  return type == circle::TensorType::MXINT8 || type == circle::TensorType::MXFP4;
}

// MX tensors: the type is the format, the record only says along which dimension blocks of
// 32 elements share an exponent.
void checkMx(Findings &f, std::size_t s, std::size_t t) {
  const CircleTensor &tensor = f.model.subgraphs[s].tensors[t];
  const std::string path = tensorPath(s, t) + ".quantization";
  const std::string label = tensorLabel(f.model.subgraphs[s], static_cast<int64_t>(t)) + " of type " +
                            typeName(tensor.type);
  if (!tensor.quantization) {
    f.error("QUANT_MX_RECORD", path, label + " has no quantization record (quantized_dimension names its MX axis)");
    return;
  }
  const circle::QuantizationParametersT &q = *tensor.quantization;
  if (!q.scale.empty() || !q.zero_point.empty())
    f.error("QUANT_MX_RECORD", path + ".scale",
            label + " has " + std::to_string(q.scale.size()) + " scales and " + std::to_string(q.zero_point.size()) +
                " zero points (MX exponents are shared per block, not given as scales)");
  const auto rank = static_cast<int64_t>(tensor.shape.size());
  if (q.quantized_dimension < 0 || q.quantized_dimension >= rank)
    f.error("QUANT_MX_RECORD", path + ".quantized_dimension",
            label + " has quantized_dimension " + std::to_string(q.quantized_dimension) + " but rank " +
                std::to_string(rank));
}

void checkRecord(Findings &f, std::size_t s, std::size_t t) {
  const CircleTensor &tensor = f.model.subgraphs[s].tensors[t];
  if (isMxType(tensor.type))
    return checkMx(f, s, t);
  const circle::QuantizationParametersT &q = *tensor.quantization;
  const std::string path = tensorPath(s, t) + ".quantization";
  const std::string label = tensorLabel(f.model.subgraphs[s], static_cast<int64_t>(t));
  for (std::size_t i = 0; i < q.scale.size(); ++i)
    if (!std::isfinite(q.scale[i]) || !(q.scale[i] > 0.0f)) {
      f.error("QUANT_SCALE", item(path + ".scale", i),
              label + " has scale " + std::to_string(q.scale[i]) + " (a scale is a positive finite number)");
      break;
    }
  if (q.zero_point.size() != q.scale.size())
    f.error("QUANT_LENGTH_MISMATCH", path + ".zero_point",
            label + " has " + std::to_string(q.scale.size()) + " scales but " + std::to_string(q.zero_point.size()) +
                " zero points");
  if (q.min.size() != q.max.size() || (!q.min.empty() && !q.scale.empty() && q.min.size() != q.scale.size()))
    f.error("QUANT_LENGTH_MISMATCH", path + ".min",
            label + " has " + std::to_string(q.min.size()) + " min and " + std::to_string(q.max.size()) +
                " max entries for " + std::to_string(q.scale.size()) +
                " scales (min/max are empty or one per scale)");
  if (const auto range = integerRange(tensor.type))
    for (std::size_t i = 0; i < q.zero_point.size(); ++i)
      if (q.zero_point[i] < range->first || q.zero_point[i] > range->second) {
        f.error("QUANT_ZERO_POINT_RANGE", item(path + ".zero_point", i),
                label + " of type " + typeName(tensor.type) + " has zero point " + std::to_string(q.zero_point[i]) +
                    ", outside [" + std::to_string(range->first) + ", " + std::to_string(range->second) + "]");
        break;
      }
  if (!q.scale.empty() && isFloatType(tensor.type))
    f.warning("QUANT_ON_FLOAT", path + ".scale",
              label + " of type " + typeName(tensor.type) + " has scales; runtimes ignore them on float tensors");
  // quantized_dimension means something only for per-channel records (or a non-default value).
  const bool per_channel = q.scale.size() > 1;
  if (!per_channel && q.quantized_dimension == 0)
    return;
  const auto rank = static_cast<int64_t>(tensor.shape.size());
  if (q.quantized_dimension < 0 || q.quantized_dimension >= rank) {
    f.error("QUANT_DIMENSION", path + ".quantized_dimension",
            label + " has quantized_dimension " + std::to_string(q.quantized_dimension) + " but rank " +
                std::to_string(rank));
    return;
  }
  const bool dynamic = q.quantized_dimension < static_cast<int64_t>(tensor.shape_signature.size()) &&
                       tensor.shape_signature[static_cast<std::size_t>(q.quantized_dimension)] < 0;
  const int32_t channels = tensor.shape[static_cast<std::size_t>(q.quantized_dimension)];
  if (per_channel && !dynamic && q.details.type == circle::QuantizationDetails::NONE &&
      static_cast<int64_t>(q.scale.size()) != channels)
    f.error("QUANT_CHANNEL_COUNT", path + ".scale",
            label + " has " + std::to_string(q.scale.size()) + " scales along dimension " +
                std::to_string(q.quantized_dimension) + " of size " + std::to_string(channels));
}

} // namespace

void checkQuantization(Findings &f, std::size_t s) {
  const CircleSubGraph &sg = f.model.subgraphs[s];
  for (std::size_t t = 0; t < sg.tensors.size(); ++t)
    if (sg.tensors[t].quantization || isMxType(sg.tensors[t].type))
      checkRecord(f, s, t);
}

} // namespace tico::circle_verify
