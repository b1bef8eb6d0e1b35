#include "quant/qparams.h"

#include "tico/circle/quantization.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tico::interp::quant {

DType elementTypeOf(circle::TensorType type) {
  switch (type) {
  case circle::TensorType::UINT4: return DType::UInt8;
  case circle::TensorType::INT4: return DType::Int8;
  default: return fromCircleType(type);
  }
}

bool isPackedFourBit(circle::TensorType type) {
  return type == circle::TensorType::UINT4 || type == circle::TensorType::INT4;
}

std::vector<std::byte> unpackFourBit(const std::vector<std::byte> &packed, int64_t count, bool is_signed) {
  return unpackInt4(packed.data(), packed.size(), static_cast<std::size_t>(count),
                    is_signed ? DType::Int4 : DType::UInt4);
}

bool isQuantizedTensor(const CircleTensor &tensor) {
  if (tensor.quantization == nullptr || tensor.quantization->scale.empty())
    return false;
  switch (tensor.type) {
  case circle::TensorType::UINT8:
  case circle::TensorType::INT8:
  case circle::TensorType::INT16:
  case circle::TensorType::INT32:
  case circle::TensorType::INT64:
  case circle::TensorType::UINT4:
  case circle::TensorType::INT4: return true;
  default: return false;
  }
}

namespace {

std::string label(const CircleTensor &tensor, const std::string &role) {
  return role + " '" + tensor.name + "'";
}

} // namespace

QParams qparamsOf(const CircleTensor &tensor, const std::string &role) {
  const auto &q = tensor.quantization;
  if (q == nullptr || q->scale.empty())
    throw Error(label(tensor, role) + " has no quantization parameters");
  QParams p;
  p.scale.assign(q->scale.begin(), q->scale.end());
  p.zero_point = q->zero_point.empty() ? std::vector<int64_t>(q->scale.size(), 0) : q->zero_point;
  if (p.zero_point.size() != p.scale.size())
    throw Error(label(tensor, role) + " has " + std::to_string(p.scale.size()) + " scales and " +
                std::to_string(p.zero_point.size()) + " zero points");
  // The stored type's range (a 4-bit tensor's, not the wider one it is unpacked into).
  const DType stored = fromCircleType(tensor.type);
  const int64_t lo = qmin(stored), hi = qmax(stored);
  for (std::size_t i = 0; i < p.scale.size(); ++i) {
    if (!(std::isfinite(p.scale[i]) && p.scale[i] > 0.0))
      throw Error(label(tensor, role) + " has scale " + std::to_string(p.scale[i]) + " (must be positive and finite)");
    if (p.zero_point[i] < lo || p.zero_point[i] > hi)
      throw Error(label(tensor, role) + " has zero point " + std::to_string(p.zero_point[i]) +
                  " outside its type's range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  if (p.scale.size() > 1) {
    const int64_t axis = q->quantized_dimension;
    const auto rank = static_cast<int64_t>(tensor.shape.size());
    if (axis < 0 || axis >= rank)
      throw Error(label(tensor, role) + " has quantized_dimension " + std::to_string(axis) + " outside rank " +
                  std::to_string(rank));
    if (tensor.shape[static_cast<std::size_t>(axis)] != static_cast<int32_t>(p.scale.size()))
      throw Error(label(tensor, role) + " has " + std::to_string(p.scale.size()) + " scales for dim " +
                  std::to_string(axis) + " of size " + std::to_string(tensor.shape[static_cast<std::size_t>(axis)]));
    p.axis = axis;
  }
  return p;
}

QParams perTensorQParams(const CircleTensor &tensor, const std::string &role) {
  QParams p = qparamsOf(tensor, role);
  if (p.perChannel())
    throw Error(label(tensor, role) + " is quantized per channel; this operator needs one scale and zero point");
  return p;
}

Range activationRange(circle::ActivationFunctionType activation, double scale, int64_t zero_point, DType dtype) {
  Range r{qmin(dtype), qmax(dtype)};
  // Real bound -> the nearest code, clipped to the type (what the output would hold anyway).
  auto code = [&](double real) { return zero_point + static_cast<int64_t>(std::llround(real / scale)); };
  switch (activation) {
  case circle::ActivationFunctionType::NONE: break;
  case circle::ActivationFunctionType::RELU: r.lo = std::max(r.lo, zero_point); break;
  case circle::ActivationFunctionType::RELU6:
    r.lo = std::max(r.lo, zero_point);
    r.hi = std::min(r.hi, code(6.0));
    break;
  case circle::ActivationFunctionType::RELU_N1_TO_1:
    r.lo = std::max(r.lo, code(-1.0));
    r.hi = std::min(r.hi, code(1.0));
    break;
  default:
    throw Error(std::string("fused activation ") + circle::EnumNameActivationFunctionType(activation) +
                " has no quantized form (only NONE, RELU, RELU6, RELU_N1_TO_1)");
  }
  return r;
}

std::string describeType(const CircleTensor &tensor) {
  const char *name = circle::EnumNameTensorType(tensor.type);
  std::ostringstream out;
  out << (name && *name ? name : std::to_string(static_cast<int>(tensor.type)));
  const auto &q = tensor.quantization;
  if (q != nullptr && !q->scale.empty()) {
    if (q->scale.size() == 1)
      out << " (scale " << q->scale[0] << ", zero point " << (q->zero_point.empty() ? 0 : q->zero_point[0]) << ")";
    else
      out << " (per-channel, " << q->scale.size() << " scales on dim " << q->quantized_dimension << ")";
  }
  return out.str();
}

bool sameQParams(const CircleTensor &a, const CircleTensor &b) {
  if (!isQuantizedTensor(a) || !isQuantizedTensor(b))
    return false;
  const auto &qa = *a.quantization;
  const auto &qb = *b.quantization;
  const int64_t za = qa.zero_point.empty() ? 0 : qa.zero_point[0];
  const int64_t zb = qb.zero_point.empty() ? 0 : qb.zero_point[0];
  return qa.scale.size() == 1 && qb.scale.size() == 1 && qa.scale[0] == qb.scale[0] && za == zb;
}

} // namespace tico::interp::quant
