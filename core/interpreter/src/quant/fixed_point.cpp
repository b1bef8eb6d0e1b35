#include "quant/fixed_point.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tico::interp::quant {

Multiplier quantizeMultiplier(double real, const char *what) {
  if (!std::isfinite(real) || real < 0.0)
    throw Error(std::string(what) + " multiplier " + std::to_string(real) + " is not a finite non-negative number");
  if (real == 0.0)
    return {};
  int exponent = 0;
  const double fraction = std::frexp(real, &exponent); // real = fraction · 2^exponent, fraction in [0.5, 1)
  int64_t mantissa = std::llround(fraction * 2147483648.0);
  if (mantissa == (int64_t{1} << 31)) { // rounding reached 1.0: renormalise
    mantissa /= 2;
    ++exponent;
  }
  if (exponent > 31)
    throw Error(std::string(what) + " multiplier " + std::to_string(real) + " is too large (>= 2^31)");
  if (exponent < -31) // smaller than 2^-62: the result rounds to zero for any int32 input
    return {};
  return {static_cast<int32_t>(mantissa), exponent};
}

int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  const int64_t product = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = product >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // Division truncates toward zero; with the nudge this rounds to nearest, ties toward +∞.
  return static_cast<int32_t>((product + nudge) / (int64_t{1} << 31));
}

int32_t roundingDivideByPOT(int32_t x, int exponent) {
  if (exponent <= 0)
    return x;
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiplyByQuantizedMultiplier(int32_t x, Multiplier multiplier) {
  if (multiplier.mantissa == 0)
    return 0;
  const int left = multiplier.exponent > 0 ? multiplier.exponent : 0;
  const int right = multiplier.exponent > 0 ? 0 : -multiplier.exponent;
  const int64_t shifted = static_cast<int64_t>(x) * (int64_t{1} << left);
  if (shifted < std::numeric_limits<int32_t>::min() || shifted > std::numeric_limits<int32_t>::max())
    return static_cast<int32_t>(std::clamp<int64_t>(multiplyByQuantizedMultiplier64(x, multiplier),
                                                    std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max()));
  const int32_t high = saturatingRoundingDoublingHighMul(static_cast<int32_t>(shifted), multiplier.mantissa);
  return roundingDivideByPOT(high, right);
}

int64_t multiplyByQuantizedMultiplier64(int64_t x, Multiplier multiplier) {
  if (multiplier.mantissa == 0)
    return 0;
  // x · m · 2^(e − 31): one exact product, then one rounding of the magnitude (half away).
  __int128 product = static_cast<__int128>(x) * multiplier.mantissa;
  const int right = 31 - multiplier.exponent; // in [0, 62]
  __int128 result;
  if (right <= 0) {
    result = product * (static_cast<__int128>(1) << -right);
  } else {
    const bool negative = product < 0;
    const __int128 magnitude = negative ? -product : product;
    const __int128 rounded = (magnitude + (static_cast<__int128>(1) << (right - 1))) >> right;
    result = negative ? -rounded : rounded;
  }
  constexpr auto lo = static_cast<__int128>(std::numeric_limits<int64_t>::min());
  constexpr auto hi = static_cast<__int128>(std::numeric_limits<int64_t>::max());
  return static_cast<int64_t>(result < lo ? lo : (result > hi ? hi : result));
}

} // namespace tico::interp::quant
