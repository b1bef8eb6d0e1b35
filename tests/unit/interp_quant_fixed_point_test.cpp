// The fixed-point primitives of the quantized kernels, against hand-computed values.
#include "quant/fixed_point.h"

#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tico::interp::quant {
namespace {

TEST(InterpQuantFixedPoint, MultiplierDecomposition) {
  const Multiplier half = quantizeMultiplier(0.5, "test");
  EXPECT_EQ(half.mantissa, 1 << 30); // 0.5 = 2^30 · 2^(0 − 31)
  EXPECT_EQ(half.exponent, 0);
  const Multiplier three = quantizeMultiplier(3.0, "test"); // 0.75 · 2^2
  EXPECT_EQ(three.mantissa, 1610612736);
  EXPECT_EQ(three.exponent, 2);
  // A value whose mantissa rounds up to 2^31 is renormalised.
  const Multiplier almost_one = quantizeMultiplier(1.0 - 1e-12, "test");
  EXPECT_EQ(almost_one.mantissa, 1 << 30);
  EXPECT_EQ(almost_one.exponent, 1);
  EXPECT_EQ(quantizeMultiplier(0.0, "test").mantissa, 0);
  EXPECT_THROW(quantizeMultiplier(-1.0, "test"), Error);
  EXPECT_THROW(quantizeMultiplier(NAN, "test"), Error);
  EXPECT_THROW(quantizeMultiplier(std::ldexp(1.0, 40), "test"), Error);
}

TEST(InterpQuantFixedPoint, RoundingPrimitives) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMin), std::numeric_limits<int32_t>::max());
  // (3 · 2^30 · 2) / 2^32 = 1.5 -> 2 and -1.5 -> -1: gemmlowp's ties go toward +inf.
  EXPECT_EQ(saturatingRoundingDoublingHighMul(3, 1 << 30), 2);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-3, 1 << 30), -1);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-5, 1 << 30), -2); // -2.5 -> -2
  EXPECT_EQ(roundingDivideByPOT(5, 1), 3);   // 2.5 -> 3
  EXPECT_EQ(roundingDivideByPOT(-5, 1), -3); // -2.5 -> -3
  EXPECT_EQ(roundingDivideByPOT(7, 2), 2);   // 1.75 -> 2
  EXPECT_EQ(roundingDivideByPOT(-6, 2), -2); // -1.5 -> -2
  EXPECT_EQ(roundingDivideByPOT(9, 0), 9);
}

TEST(InterpQuantFixedPoint, MultiplyByQuantizedMultiplier) {
  EXPECT_EQ(multiplyByQuantizedMultiplier(100, quantizeMultiplier(0.5, "t")), 50);
  EXPECT_EQ(multiplyByQuantizedMultiplier(10, quantizeMultiplier(0.3, "t")), 3);
  EXPECT_EQ(multiplyByQuantizedMultiplier(-25, quantizeMultiplier(0.1, "t")), -3); // -2.5 -> -3
  EXPECT_EQ(multiplyByQuantizedMultiplier(7, quantizeMultiplier(3.0, "t")), 21);
  EXPECT_EQ(multiplyByQuantizedMultiplier(std::numeric_limits<int32_t>::max(), quantizeMultiplier(4.0, "t")),
            std::numeric_limits<int32_t>::max()); // saturates
  // A shift that overflows int32 although the product fits: 2^29 · 3 = 1610612736.
  EXPECT_EQ(multiplyByQuantizedMultiplier(1 << 29, quantizeMultiplier(3.0, "t")), 1610612736);
  // The 64-bit form: exact product, one rounding.
  EXPECT_EQ(multiplyByQuantizedMultiplier64(int64_t{1} << 40, quantizeMultiplier(0.25, "t")), int64_t{1} << 38);
  EXPECT_EQ(multiplyByQuantizedMultiplier64(-5, quantizeMultiplier(0.5, "t")), -3);
  EXPECT_EQ(multiplyByQuantizedMultiplier64(3'000'000'000LL, quantizeMultiplier(1.0 / 3.0, "t")), 1'000'000'000LL);
  // Random agreement with real arithmetic within one rounding.
  uint32_t state = 12345;
  for (int i = 0; i < 2000; ++i) {
    state = state * 1664525u + 1013904223u;
    const double real = std::ldexp(static_cast<double>(state % 100000 + 1) / 100000.0, static_cast<int>(state % 20) - 15);
    state = state * 1664525u + 1013904223u;
    const auto x = static_cast<int32_t>(static_cast<int64_t>(state % 2000001) - 1000000);
    const Multiplier m = quantizeMultiplier(real, "t");
    const double exact = static_cast<double>(x) * real;
    if (std::fabs(exact) < 1e9) {
      EXPECT_LE(std::fabs(multiplyByQuantizedMultiplier(x, m) - exact), 1.0) << x << " * " << real;
      EXPECT_LE(std::fabs(static_cast<double>(multiplyByQuantizedMultiplier64(x, m)) - exact), 0.5 + 1e-6 * std::fabs(exact) + 1e-9)
          << x << " * " << real;
    }
  }
}

} // namespace
} // namespace tico::interp::quant
