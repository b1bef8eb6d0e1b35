// Helpers of the quantized-kernel tests: quantized tensors in a ModelBuilder model (per tensor,
// per channel, 4-bit packed constants), codes in and out of TensorData, and the independent
// reference every test compares against: real arithmetic in double on the dequantized inputs,
// mapped onto the output grid without rounding, so the distance to the kernel's code is in
// output steps (the integer kernels must stay within 1 step; they are usually within 0.5 + ε).
#pragma once

#include "interp_test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tico::test::quant {

struct QParams {
  std::vector<float> scale{1.0f};
  std::vector<int64_t> zero_point{0};
  int32_t axis = 0;

  double s(std::size_t c = 0) const { return scale.size() == 1 ? scale[0] : scale[c]; }
  int64_t zp(std::size_t c = 0) const { return zero_point.size() == 1 ? zero_point[0] : zero_point[c]; }
};

inline int64_t lowest(DType dtype) {
  switch (dtype) {
  case DType::UInt8: return 0;
  case DType::Int8: return -128;
  case DType::Int16: return -32768;
  case DType::Int32: return std::numeric_limits<int32_t>::min();
  default: return std::numeric_limits<int64_t>::min();
  }
}
inline int64_t highest(DType dtype) {
  switch (dtype) {
  case DType::UInt8: return 255;
  case DType::Int8: return 127;
  case DType::Int16: return 32767;
  case DType::Int32: return std::numeric_limits<int32_t>::max();
  default: return std::numeric_limits<int64_t>::max();
  }
}

inline void setQuant(ModelBuilder &b, int32_t tensor, const QParams &q) {
  auto params = std::make_shared<circle::QuantizationParametersT>();
  params->scale = q.scale;
  params->zero_point = q.zero_point;
  params->quantized_dimension = q.axis;
  b.model().subgraphs[0].tensors[static_cast<std::size_t>(tensor)].quantization = params;
}

// TensorData of `dtype` (uint8/int8/int16/int32/int64) holding `codes`.
inline TensorPtr codes(DType dtype, std::vector<int64_t> shape, const std::vector<int64_t> &values) {
  switch (dtype) {
  case DType::UInt8: return tensorOf(dtype, std::move(shape), std::vector<uint8_t>(values.begin(), values.end()));
  case DType::Int8: return tensorOf(dtype, std::move(shape), std::vector<int8_t>(values.begin(), values.end()));
  case DType::Int16: return tensorOf(dtype, std::move(shape), std::vector<int16_t>(values.begin(), values.end()));
  case DType::Int32: return tensorOf(dtype, std::move(shape), std::vector<int32_t>(values.begin(), values.end()));
  default: return tensorOf(DType::Int64, std::move(shape), values);
  }
}

inline std::vector<int64_t> codesOf(const TensorData &t) {
  switch (t.dtype) {
  case DType::UInt8: { auto v = valuesOf<uint8_t>(t); return {v.begin(), v.end()}; }
  case DType::Int8: { auto v = valuesOf<int8_t>(t); return {v.begin(), v.end()}; }
  case DType::Int16: { auto v = valuesOf<int16_t>(t); return {v.begin(), v.end()}; }
  case DType::Int32: { auto v = valuesOf<int32_t>(t); return {v.begin(), v.end()}; }
  default: return valuesOf<int64_t>(t);
  }
}

// Deterministic codes in [lo, hi].
inline std::vector<int64_t> randomCodes(std::size_t count, int64_t lo, int64_t hi, uint32_t seed) {
  std::vector<int64_t> out(count);
  uint32_t state = seed * 2246822519u + 7u;
  for (auto &v : out) {
    state = state * 1664525u + 1013904223u;
    v = lo + static_cast<int64_t>((state >> 8) % static_cast<uint32_t>(hi - lo + 1));
  }
  return out;
}

inline int32_t qinput(ModelBuilder &b, const std::string &name, DType dtype, std::vector<int32_t> shape, const QParams &q) {
  const int32_t t = b.input(name, dtype, std::move(shape));
  setQuant(b, t, q);
  return t;
}

inline int32_t qtensor(ModelBuilder &b, const std::string &name, DType dtype, std::vector<int32_t> shape, const QParams &q) {
  const int32_t t = b.tensor(name, dtype, std::move(shape));
  setQuant(b, t, q);
  return t;
}

inline int32_t qconst(ModelBuilder &b, const std::string &name, DType dtype, std::vector<int64_t> shape,
                      const std::vector<int64_t> &values, const QParams &q) {
  const int32_t t = b.constant(name, codes(dtype, std::move(shape), values));
  setQuant(b, t, q);
  return t;
}

// A packed 4-bit constant (UINT4 / INT4): element 2k in the low nibble, odd tail padded.
inline int32_t qconst4(ModelBuilder &b, const std::string &name, bool is_signed, std::vector<int64_t> shape,
                       const std::vector<int64_t> &values, const QParams &q) {
  std::vector<uint8_t> packed((values.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    packed[i / 2] |= static_cast<uint8_t>((values[i] & 0x0F) << ((i % 2) * 4));
  const int32_t t = b.constant(name, tensorOf(DType::UInt8, {static_cast<int64_t>(packed.size())}, packed));
  CircleTensor &tensor = b.model().subgraphs[0].tensors[static_cast<std::size_t>(t)];
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.type = is_signed ? circle::TensorType::INT4 : circle::TensorType::UINT4;
  setQuant(b, t, q);
  return t;
}

inline double real(int64_t code, const QParams &q, std::size_t c = 0) {
  return q.s(c) * static_cast<double>(code - q.zp(c));
}

// The exact (unrounded) output code of a real result, clipped to the type and clamp range.
inline double idealCode(double value, const QParams &out, DType dtype, double lo = -INFINITY, double hi = INFINITY) {
  const double code = value / out.s() + static_cast<double>(out.zp());
  return std::clamp(code, std::max(lo, static_cast<double>(lowest(dtype))), std::min(hi, static_cast<double>(highest(dtype))));
}

// Max |got − ideal| in output steps; prints it (the figure the kernels are judged by).
inline double maxStepError(const std::vector<int64_t> &got, const std::vector<double> &ideal, const std::string &what) {
  EXPECT_EQ(got.size(), ideal.size()) << what;
  double worst = 0.0;
  for (std::size_t i = 0; i < std::min(got.size(), ideal.size()); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - ideal[i]));
  std::printf("[quant-kernels] %-48s max error %.3f steps over %zu outputs\n", what.c_str(), worst, got.size());
  return worst;
}

} // namespace tico::test::quant
