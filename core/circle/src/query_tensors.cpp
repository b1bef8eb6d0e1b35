// Tensor queries of tico/circle/query.h: element sizes, constants, quantization, contracts.

#include "tico/circle/query.h"

#include <algorithm>

namespace tico {
namespace {

// Element count of a static shape; nullopt when a dimension is negative or the count overflows.
std::optional<uint64_t> staticElementCount(const std::vector<int32_t> &shape) {
  uint64_t count = 1;
  for (int32_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && count > UINT64_MAX / 16 / static_cast<uint64_t>(d))
      return std::nullopt;
    count *= static_cast<uint64_t>(d);
  }
  return count;
}

} // namespace

std::size_t circleElementSize(circle::TensorType type) {
  using T = circle::TensorType;
  switch (type) {
  case T::BOOL:
  case T::UINT8:
  case T::INT8: return 1;
  case T::INT16:
  case T::UINT16:
  case T::FLOAT16:
  case T::BFLOAT16: return 2;
  case T::INT32:
  case T::UINT32:
  case T::FLOAT32: return 4;
  case T::INT64:
  case T::UINT64:
  case T::FLOAT64:
  case T::COMPLEX64: return 8;
  case T::COMPLEX128: return 16;
  default: return 0;
  }
}

bool isConstantTensor(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.buffer >= model.buffers.size())
    return false;
  const auto &data = model.buffers[tensor.buffer].data;
  return data && data->nbytes() > 0;
}

bool hasTypedPayload(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.is_variable || tensor.buffer == 0 || tensor.buffer >= model.buffers.size())
    return false;
  const auto &data = model.buffers[tensor.buffer].data;
  if (!data)
    return false;
  const std::size_t element = circleElementSize(tensor.type);
  if (element == 0 || isDynamic(tensor))
    return false;
  const auto count = staticElementCount(tensor.shape);
  return count && data->nbytes() == *count * element;
}

bool sameQuantization(const CircleTensor &a, const CircleTensor &b) {
  const auto *qa = a.quantization.get();
  const auto *qb = b.quantization.get();
  auto empty = [](const circle::QuantizationParametersT *q) {
    return q == nullptr || (q->min.empty() && q->max.empty() && q->scale.empty() && q->zero_point.empty() &&
                            q->details.type == circle::QuantizationDetails::NONE);
  };
  if (empty(qa) || empty(qb))
    return empty(qa) && empty(qb);
  if (qa->details.type != circle::QuantizationDetails::NONE || qb->details.type != circle::QuantizationDetails::NONE)
    return qa == qb; // custom details: equal only when literally shared
  return qa->min == qb->min && qa->max == qb->max && qa->scale == qb->scale && qa->zero_point == qb->zero_point &&
         qa->quantized_dimension == qb->quantized_dimension;
}

bool sameContract(const CircleTensor &a, const CircleTensor &b) {
  return a.type == b.type && a.shape == b.shape && a.shape_signature == b.shape_signature &&
         a.is_variable == b.is_variable && sameQuantization(a, b);
}

bool isDynamic(const CircleTensor &t) {
  return std::any_of(t.shape_signature.begin(), t.shape_signature.end(), [](int32_t d) { return d < 0; });
}

bool isQuantized(const CircleTensor &t) {
  const auto *q = t.quantization.get();
  return q != nullptr && (!q->scale.empty() || !q->zero_point.empty() || q->details.type != circle::QuantizationDetails::NONE);
}

} // namespace tico
