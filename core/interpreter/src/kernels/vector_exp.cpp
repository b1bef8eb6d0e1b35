#include "kernels/vector_exp.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

typedef float Floats __attribute__((vector_size(16)));
typedef int32_t Ints __attribute__((vector_size(16)));

Floats splat(float v) { return Floats{v, v, v, v}; }

// mask ? a : b, lane by lane (mask lanes are all ones or all zeros).
Floats select(Ints mask, Floats a, Floats b) {
  return reinterpret_cast<Floats>((mask & reinterpret_cast<Ints>(a)) | (~mask & reinterpret_cast<Ints>(b)));
}

Floats exp4(Floats x) {
  // Above 88 the result would need 2^128 in the last step; exp(88) is already 1.65e38.
  const Floats high = splat(88.0f), low = splat(-87.3365447504019f);
  const Ints overflow = x > high, underflow = x < low, nan = x != x;
  Floats v = select(nan, splat(0.0f), select(overflow, high, select(underflow, low, x)));
  // n = round(v / ln 2), r = v - n ln 2 in two parts (the high part exact in float).
  const Floats t = v * splat(1.44269504088896341f) + splat(0.5f);
  Floats n = __builtin_convertvector(__builtin_convertvector(t, Ints), Floats); // truncates
  n = select(n > t, n - splat(1.0f), n);                                        // floor
  const Floats r = v - n * splat(0.693359375f) - n * splat(-2.12194440e-4f);
  Floats p = splat(1.9875691500e-4f);
  p = p * r + splat(1.3981999507e-3f);
  p = p * r + splat(8.3334519073e-3f);
  p = p * r + splat(4.1665795894e-2f);
  p = p * r + splat(1.6666665459e-1f);
  p = p * r + splat(5.0000001201e-1f);
  p = p * r * r + r + splat(1.0f);
  const Ints exponent = (__builtin_convertvector(n, Ints) + 127) << 23; // 2^n, n in [-126, 127]
  Floats y = p * reinterpret_cast<Floats>(exponent);
  y = select(overflow, splat(__builtin_inff()), y);
  y = select(underflow, splat(0.0f), y);
  return select(nan, x, y);
}

} // namespace

void expFloats(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Floats v;
    std::memcpy(&v, x + i, sizeof v);
    v = exp4(v);
    std::memcpy(y + i, &v, sizeof v);
  }
  if (i < n) { // the tail through the same lanes, padded
    float lanes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    std::copy(x + i, x + n, lanes);
    Floats v;
    std::memcpy(&v, lanes, sizeof v);
    v = exp4(v);
    std::memcpy(lanes, &v, sizeof v);
    std::copy(lanes, lanes + (n - i), y + i);
  }
}

} // namespace tico::interp
