#include "constants.h"

#include "model_query.h"

#include "tico/support/error.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tico::circle_passes {

std::optional<std::vector<std::byte>> constantBytes(const CircleModel &model, const CircleTensor &tensor) {
  if (!hasTypedPayload(model, tensor))
    return std::nullopt;
  return model.buffers[tensor.buffer].data->contiguousBytes();
}

namespace {

float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? std::nanf("") : INFINITY;
  else
    value = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  return sign ? -value : value;
}

template <typename T> T load(const std::byte *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

} // namespace

std::optional<std::vector<double>> constantAsDoubles(const CircleModel &model, const CircleTensor &tensor) {
  auto bytes = constantBytes(model, tensor);
  if (!bytes)
    return std::nullopt;
  std::size_t size = circleElementSize(tensor.type);
  std::size_t n = bytes->size() / size;
  std::vector<double> out(n);
  const std::byte *p = bytes->data();
  using T = circle::TensorType;
  for (std::size_t i = 0; i < n; ++i, p += size) {
    switch (tensor.type) {
    case T::FLOAT32: out[i] = load<float>(p); break;
    case T::FLOAT64: out[i] = load<double>(p); break;
    case T::FLOAT16: out[i] = halfToFloat(load<uint16_t>(p)); break;
    case T::BFLOAT16: out[i] = std::bit_cast<float>(static_cast<uint32_t>(load<uint16_t>(p)) << 16); break;
    case T::INT8: out[i] = load<int8_t>(p); break;
    case T::UINT8: out[i] = load<uint8_t>(p); break;
    case T::BOOL: out[i] = load<uint8_t>(p) != 0; break;
    case T::INT16: out[i] = load<int16_t>(p); break;
    case T::UINT16: out[i] = load<uint16_t>(p); break;
    case T::INT32: out[i] = load<int32_t>(p); break;
    case T::UINT32: out[i] = load<uint32_t>(p); break;
    case T::INT64: {
      int64_t v = load<int64_t>(p);
      if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53))
        return std::nullopt;
      out[i] = static_cast<double>(v);
      break;
    }
    default: return std::nullopt;
    }
  }
  return out;
}

std::optional<std::vector<float>> constantAsFloats(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.type != circle::TensorType::FLOAT32)
    return std::nullopt;
  auto bytes = constantBytes(model, tensor);
  if (!bytes)
    return std::nullopt;
  std::vector<float> out(bytes->size() / sizeof(float));
  if (!out.empty())
    std::memcpy(out.data(), bytes->data(), bytes->size());
  return out;
}

std::optional<std::vector<int64_t>> constantAsInts(const CircleModel &model, const CircleTensor &tensor) {
  using T = circle::TensorType;
  switch (tensor.type) {
  case T::INT8: case T::UINT8: case T::BOOL: case T::INT16: case T::UINT16: case T::INT32: case T::UINT32:
  case T::INT64: break;
  default: return std::nullopt;
  }
  auto bytes = constantBytes(model, tensor);
  if (!bytes)
    return std::nullopt;
  std::size_t size = circleElementSize(tensor.type);
  std::size_t n = bytes->size() / size;
  std::vector<int64_t> out(n);
  const std::byte *p = bytes->data();
  for (std::size_t i = 0; i < n; ++i, p += size) {
    switch (tensor.type) {
    case T::INT8: out[i] = load<int8_t>(p); break;
    case T::UINT8: out[i] = load<uint8_t>(p); break;
    case T::BOOL: out[i] = load<uint8_t>(p) != 0; break;
    case T::INT16: out[i] = load<int16_t>(p); break;
    case T::UINT16: out[i] = load<uint16_t>(p); break;
    case T::INT32: out[i] = load<int32_t>(p); break;
    case T::UINT32: out[i] = load<uint32_t>(p); break;
    default: out[i] = load<int64_t>(p); break;
    }
  }
  return out;
}

bool constantIsSplat(const CircleModel &model, const CircleTensor &tensor, double value) {
  auto values = constantAsDoubles(model, tensor);
  if (!values || values->empty())
    return false;
  for (double v : *values)
    if (!(v == value))
      return false;
  return true;
}

std::shared_ptr<const TensorData> payloadFromBytes(circle::TensorType type, const std::vector<int32_t> &shape,
                                                   std::vector<std::byte> bytes) {
  std::vector<int64_t> sizes(shape.begin(), shape.end());
  return std::make_shared<TensorData>(TensorData::fromBytes(fromCircleType(type), std::move(sizes), std::move(bytes)));
}

std::shared_ptr<const TensorData> payloadFromFloats(const std::vector<int32_t> &shape, const std::vector<float> &values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return payloadFromBytes(circle::TensorType::FLOAT32, shape, std::move(bytes));
}

std::shared_ptr<const TensorData> payloadFromInt32(const std::vector<int32_t> &shape, const std::vector<int32_t> &values) {
  std::vector<std::byte> bytes(values.size() * sizeof(int32_t));
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return payloadFromBytes(circle::TensorType::INT32, shape, std::move(bytes));
}

namespace {

template <typename T> void store(std::byte *p, T v) { std::memcpy(p, &v, sizeof(T)); }

uint16_t floatToHalf(float f) {
  // Round to nearest even through the float bit pattern.
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exponent = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10)
      return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return static_cast<uint16_t>(half);
}

} // namespace

std::shared_ptr<const TensorData> payloadFromDoubles(circle::TensorType type, const std::vector<int32_t> &shape,
                                                     const std::vector<double> &values) {
  std::size_t size = circleElementSize(type);
  std::vector<std::byte> bytes(values.size() * size);
  std::byte *p = bytes.data();
  using T = circle::TensorType;
  for (double v : values) {
    switch (type) {
    case T::FLOAT32: store(p, static_cast<float>(v)); break;
    case T::FLOAT64: store(p, v); break;
    case T::FLOAT16: store(p, floatToHalf(static_cast<float>(v))); break;
    case T::BFLOAT16: {
      uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(v));
      bits += 0x7fff + ((bits >> 16) & 1);
      store(p, static_cast<uint16_t>(bits >> 16));
      break;
    }
    case T::BOOL: store(p, static_cast<uint8_t>(v != 0)); break;
    case T::INT8: store(p, static_cast<int8_t>(v)); break;
    case T::UINT8: store(p, static_cast<uint8_t>(v)); break;
    case T::INT16: store(p, static_cast<int16_t>(v)); break;
    case T::UINT16: store(p, static_cast<uint16_t>(v)); break;
    case T::INT32: store(p, static_cast<int32_t>(v)); break;
    case T::UINT32: store(p, static_cast<uint32_t>(v)); break;
    case T::INT64: store(p, static_cast<int64_t>(v)); break;
    case T::UINT64: store(p, static_cast<uint64_t>(v)); break;
    default: throw Error("cannot make a constant of Circle type " + std::string(circle::EnumNameTensorType(type)));
    }
    p += size;
  }
  return payloadFromBytes(type, shape, std::move(bytes));
}

std::shared_ptr<const TensorData> payloadFromInts(circle::TensorType type, const std::vector<int32_t> &shape,
                                                  const std::vector<int64_t> &values) {
  std::size_t size = circleElementSize(type);
  std::vector<std::byte> bytes(values.size() * size);
  std::byte *p = bytes.data();
  using T = circle::TensorType;
  for (int64_t v : values) {
    switch (type) {
    case T::BOOL: store(p, static_cast<uint8_t>(v != 0)); break;
    case T::INT8: store(p, static_cast<int8_t>(v)); break;
    case T::UINT8: store(p, static_cast<uint8_t>(v)); break;
    case T::INT16: store(p, static_cast<int16_t>(v)); break;
    case T::UINT16: store(p, static_cast<uint16_t>(v)); break;
    case T::INT32: store(p, static_cast<int32_t>(v)); break;
    case T::UINT32: store(p, static_cast<uint32_t>(v)); break;
    case T::INT64: store(p, v); break;
    case T::UINT64: store(p, static_cast<uint64_t>(v)); break;
    case T::FLOAT32: store(p, static_cast<float>(v)); break;
    case T::FLOAT64: store(p, static_cast<double>(v)); break;
    default: throw Error("cannot make an integer constant of Circle type " + std::string(circle::EnumNameTensorType(type)));
    }
    p += size;
  }
  return payloadFromBytes(type, shape, std::move(bytes));
}

std::vector<std::byte> permuteBytes(const std::vector<std::byte> &in, const std::vector<int64_t> &shape,
                                    const std::vector<int64_t> &perm, std::size_t element_size) {
  const std::size_t rank = shape.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;)
    in_strides[i - 1] = in_strides[i] * shape[i];
  std::vector<int64_t> out_shape(rank), stride_of_out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    out_shape[i] = shape[perm[i]];
    stride_of_out[i] = in_strides[perm[i]];
  }
  std::vector<std::byte> out(in.size());
  std::vector<int64_t> index(rank, 0);
  std::size_t total = element_size ? in.size() / element_size : 0;
  for (std::size_t n = 0; n < total; ++n) {
    int64_t src = 0;
    for (std::size_t i = 0; i < rank; ++i)
      src += index[i] * stride_of_out[i];
    std::memcpy(out.data() + n * element_size, in.data() + src * element_size, element_size);
    for (std::size_t i = rank; i-- > 0;) {
      if (++index[i] < out_shape[i])
        break;
      index[i] = 0;
    }
  }
  return out;
}

} // namespace tico::circle_passes
