#include "quant/mx.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace tico::interp::quant {
namespace {

// Element formats: exponent bits, mantissa bits (sign and implicit one included), the largest
// normal exponent (the shared exponent is the block maximum's minus it) and the largest
// magnitude.
struct ElementFormat {
  int ebits;
  int mbits;
  int emax;
  float max_norm;
};

ElementFormat elementFormat(circle::TensorType type) {
  switch (type) {
  case circle::TensorType::MXINT8: return {0, 8, 0, 127.0f / 64.0f}; // sign-magnitude 1.xxxxxx, |q| <= 1.984375
  case circle::TensorType::MXFP4: return {2, 3, 2, 6.0f};            // e2m1: 0, 0.5, 1, 1.5, 2, 3, 4, 6
  default: break;
  }
  throw Error("tensor type " + std::to_string(static_cast<int>(type)) + " is not an MX type with a known format");
}

// Elements sharing one exponent along the axis.
constexpr int64_t kMxBlockSize = 32;

float pow2(float e) { return std::isnan(e) ? e : std::ldexp(1.0f, static_cast<int>(e)); }

// Rounds one scaled element to the format (nearest, ties away from zero), as eager does.
float quantizeElement(float a, const ElementFormat &f) {
  float out = a;
  const float mantissa_scale = std::ldexp(1.0f, f.mbits - 2);
  float private_scale = 0.0f;
  if (f.ebits != 0) {
    float pe = std::floor(std::log2(std::fabs(a) + (a == 0.0f ? 1.0f : 0.0f)));
    const float min_exp = static_cast<float>(2 - (1 << (f.ebits - 1)));
    if (pe < min_exp) // NaN stays NaN
      pe = min_exp;
    private_scale = pow2(pe);
    out = out / private_scale * mantissa_scale;
  } else {
    out = out * mantissa_scale;
  }
  const float magnitude = std::floor(std::fabs(out) + 0.5f);
  out = out > 0.0f ? magnitude : out < 0.0f ? -magnitude : (std::isnan(out) ? out : 0.0f * magnitude);
  if (f.ebits != 0)
    out = out / mantissa_scale * private_scale;
  else
    out = out / mantissa_scale;
  if (!std::isnan(out))
    out = std::fmin(std::fmax(out, -f.max_norm), f.max_norm);
  if (std::isinf(a))
    out = a;
  return out;
}

} // namespace

bool isMxType(circle::TensorType type) {
  return type == circle::TensorType::MXINT8 || type == circle::TensorType::MXFP4;
}

Tensor mxQuantizeDequantize(const Tensor &in, circle::TensorType type, int64_t axis) {
  if (in.dtype != DType::Float32)
    throw Error("MX quantization needs float32 values, got " + dtypeString(in.dtype));
  if (axis < 0 || axis >= in.rank())
    throw Error("MX quantization axis " + std::to_string(axis) + " is outside the rank " + std::to_string(in.rank()));
  const ElementFormat f = elementFormat(type);
  Tensor out = allocate(DType::Float32, in.shape);
  const int64_t n = in.numel();
  if (n == 0)
    return out;
  const float *x = in.as<float>();
  float *y = out.mut<float>();
  const int64_t size = in.dim(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < in.rank(); ++d)
    inner *= in.dim(d);
  const int64_t outer = n / (size * inner);
  const float min_normal = std::numeric_limits<float>::min(); // 2^-126
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * size * inner + i;
      for (int64_t start = 0; start < size; start += kMxBlockSize) {
        const int64_t end = std::min(size, start + kMxBlockSize);
        // The block maximum of |x|; NaN wins, as torch.max propagates it.
        float max_abs = 0.0f;
        for (int64_t k = start; k < end; ++k) {
          const float v = std::fabs(x[base + k * inner]);
          if (std::isnan(v) || std::isnan(max_abs))
            max_abs = std::numeric_limits<float>::quiet_NaN();
          else if (v > max_abs)
            max_abs = v;
        }
        float shared = std::floor(std::log2(max_abs + (max_abs == 0.0f ? min_normal : 0.0f)));
        shared = shared - static_cast<float>(f.emax);
        if (shared > 127.0f) // the 8-bit scale's range; an infinite maximum lands here too
          shared = std::numeric_limits<float>::quiet_NaN();
        else if (shared < -127.0f)
          shared = -127.0f;
        const float scale = pow2(shared);
        for (int64_t k = start; k < end; ++k) {
          const int64_t at = base + k * inner;
          y[at] = quantizeElement(x[at] / scale, f) * scale;
        }
      }
    }
  return out;
}

} // namespace tico::interp::quant
