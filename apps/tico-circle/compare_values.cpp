// tico-circle compare: tensor values as real numbers, and how far two of them are apart.
//
// Quantized tensors are compared in the real domain (Circle: real = scale * (q - zero_point)),
// so a float tensor and its uint8 counterpart, or two quantized tensors with different grids,
// are measured on the values they stand for. Sums run in double: a tensor of millions of
// elements would lose the small error terms in float.
#include "compare.h"

#include "tico/circle/quantization.h"
#include "tico/circle/query.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

namespace tico::circle_tool::compare {
namespace {

template <typename T> int64_t integerAt(const std::byte *data, std::size_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return static_cast<int64_t>(v);
}

// The integers of `data` (one element per entry); false for non-integer dtypes.
bool readIntegers(DType dtype, const std::byte *data, std::size_t count, std::vector<int64_t> &out) {
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    switch (dtype) {
    case DType::Bool:
    case DType::UInt8:
    case DType::UInt4: out[i] = integerAt<uint8_t>(data, i); break;
    case DType::Int8:
    case DType::Int4: out[i] = integerAt<int8_t>(data, i); break;
    case DType::Int16: out[i] = integerAt<int16_t>(data, i); break;
    case DType::UInt16: out[i] = integerAt<uint16_t>(data, i); break;
    case DType::Int32: out[i] = integerAt<int32_t>(data, i); break;
    case DType::UInt32: out[i] = integerAt<uint32_t>(data, i); break;
    case DType::Int64:
    case DType::UInt64: out[i] = integerAt<int64_t>(data, i); break;
    default: return false;
    }
  }
  return true;
}

std::string lowerTypeName(circle::TensorType type) {
  const char *name = circle::EnumNameTensorType(type);
  std::string text = (name && *name) ? name : std::to_string(static_cast<int>(type));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool hasScales(const CircleTensor &tensor) { return tensor.quantization && !tensor.quantization->scale.empty(); }

} // namespace

std::vector<float> realValues(const CircleTensor &tensor, const TensorData &value) {
  const auto count = static_cast<std::size_t>(value.numel());
  std::vector<std::byte> owned;
  const std::byte *data = nullptr;
  if (value.isContiguous()) {
    data = value.data();
  } else {
    owned = value.contiguousBytes();
    data = owned.data();
  }
  std::vector<float> out(count);
  switch (value.dtype) {
  case DType::Float32:
    if (count)
      std::memcpy(out.data(), data, count * sizeof(float));
    return out;
  case DType::Float16:
  case DType::BFloat16: widenToFloat32(value.dtype, data, out.data(), count); return out;
  case DType::Float64:
    for (std::size_t i = 0; i < count; ++i) {
      double v;
      std::memcpy(&v, data + i * sizeof(double), sizeof v);
      out[i] = static_cast<float>(v);
    }
    return out;
  default: break;
  }
  std::vector<int64_t> codes;
  if (!readIntegers(value.dtype, data, count, codes))
    throw Error("tensor '" + tensor.name + "' has type " + std::string(dtypeName(value.dtype)) +
                ", which the comparison cannot read as numbers");
  if (!hasScales(tensor) || value.dtype == DType::Bool) {
    std::transform(codes.begin(), codes.end(), out.begin(), [](int64_t v) { return static_cast<float>(v); });
    return out;
  }
  const circle::QuantizationParametersT &q = *tensor.quantization;
  auto zeroAt = [&](std::size_t c) { return q.zero_point.empty() ? int64_t{0} : q.zero_point[std::min(c, q.zero_point.size() - 1)]; };
  if (q.scale.size() == 1) {
    const double scale = q.scale[0];
    const int64_t zero = zeroAt(0);
    for (std::size_t i = 0; i < count; ++i)
      out[i] = static_cast<float>(scale * static_cast<double>(codes[i] - zero));
    return out;
  }
  // Per channel: the channel of element i is its coordinate on quantized_dimension.
  const auto axis = static_cast<std::size_t>(q.quantized_dimension);
  if (axis >= value.sizes.size() || value.sizes[axis] != static_cast<int64_t>(q.scale.size()))
    throw Error("tensor '" + tensor.name + "' has " + std::to_string(q.scale.size()) + " scales on dim " +
                std::to_string(axis) + ", which does not fit its shape");
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < value.sizes.size(); ++d)
    inner *= static_cast<std::size_t>(value.sizes[d]);
  const std::size_t channels = q.scale.size();
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t c = (i / inner) % channels;
    out[i] = static_cast<float>(static_cast<double>(q.scale[c]) * static_cast<double>(codes[i] - zeroAt(c)));
  }
  return out;
}

std::shared_ptr<const TensorData> constantValue(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.buffer == 0 || tensor.buffer >= model.buffers.size() || !model.buffers[tensor.buffer].data)
    return nullptr;
  const TensorData &payload = *model.buffers[tensor.buffer].data;
  const std::vector<std::byte> bytes = payload.contiguousBytes();
  std::vector<int64_t> shape(tensor.shape.begin(), tensor.shape.end());
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  try {
    if (tensor.type == circle::TensorType::UINT4 || tensor.type == circle::TensorType::INT4) {
      const DType dtype = tensor.type == circle::TensorType::UINT4 ? DType::UInt4 : DType::Int4;
      return std::make_shared<const TensorData>(TensorData::fromBytes(
          dtype, shape, unpackInt4(bytes.data(), bytes.size(), static_cast<std::size_t>(count), dtype)));
    }
    const DType dtype = fromCircleType(tensor.type);
    if (bytes.size() != static_cast<std::size_t>(count) * elementSize(dtype))
      return nullptr;
    return std::make_shared<const TensorData>(TensorData::fromBytes(dtype, shape, bytes));
  } catch (const Error &) {
    return nullptr; // a type without numbers (STRING, MX formats): nothing to compare
  }
}

std::string describeTensorType(const CircleTensor &tensor) {
  std::string text = lowerTypeName(tensor.type);
  if (!hasScales(tensor))
    return text;
  const auto &q = *tensor.quantization;
  if (q.scale.size() == 1)
    return text + " (q, per-tensor)";
  return text + " (q, per-channel dim " + std::to_string(q.quantized_dimension) + ")";
}

Metrics measure(const std::vector<float> &a, const std::vector<float> &b) {
  Metrics m;
  m.count = a.size();
  double signal = 0, noise = 0, dot = 0, energy_b = 0, sum_abs = 0, max_abs = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    if (!std::isfinite(x) || !std::isfinite(y)) {
      // inf == inf counts as agreement; nan never equals itself but two nans agree too.
      if (!(x == y || (std::isnan(x) && std::isnan(y))))
        ++m.non_finite;
      continue;
    }
    const double d = x - y;
    signal += x * x;
    noise += d * d;
    dot += x * y;
    energy_b += y * y;
    sum_abs += std::fabs(d);
    max_abs = std::max(max_abs, std::fabs(d));
  }
  const double inf = std::numeric_limits<double>::infinity();
  if (m.non_finite > 0)
    m.sqnr_db = -inf; // a value that became inf or nan on one side only is as wrong as it gets
  else if (noise == 0)
    m.sqnr_db = inf;
  else if (signal == 0)
    m.sqnr_db = -inf;
  else
    m.sqnr_db = 10.0 * std::log10(signal / noise);
  if (signal == 0 && energy_b == 0)
    m.cosine = 1;
  else if (signal == 0 || energy_b == 0)
    m.cosine = 0;
  else
    m.cosine = dot / std::sqrt(signal * energy_b);
  m.max_abs = m.non_finite ? inf : max_abs;
  m.mean_abs = m.non_finite ? inf : (a.empty() ? 0 : sum_abs / static_cast<double>(a.size()));
  return m;
}

std::string formatNumber(double value, const char *format) {
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  // Sized by a first call: "%.1f" of 1e300 is 302 characters, not truncated.
  const int length = std::snprintf(nullptr, 0, format, value);
  std::string text(static_cast<std::size_t>(std::max(length, 0)), '\0');
  std::snprintf(text.data(), text.size() + 1, format, value);
  return text;
}

} // namespace tico::circle_tool::compare
