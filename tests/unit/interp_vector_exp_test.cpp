// expFloats (kernels/vector_exp.h), behind SOFTMAX, LOG_SOFTMAX and LOGISTIC: within 2 ulp of
// exp in double over the whole float32 range it covers, the documented edges, and a result
// that does not depend on where in an array (vector body or tail) a value sits.
#include "kernels/vector_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tico::interp {
namespace {

int64_t ulpDistance(float a, float b) {
  int32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return std::llabs(static_cast<int64_t>(x) - static_cast<int64_t>(y));
}

TEST(InterpVectorExp, WithinTwoUlpOfDoubleExpOverItsRange) {
  // Every 997th float in [0, 88] and in [-87.3, 0] (stepping the bit patterns): ~2 M values
  // spanning the whole exponent range of the results.
  std::vector<float> x;
  for (float sign : {1.0f, -1.0f}) {
    const float limit = sign > 0 ? 88.0f : 87.3f;
    uint32_t end;
    std::memcpy(&end, &limit, 4);
    for (uint32_t bits = 0; bits <= end; bits += 997) {
      float v;
      std::memcpy(&v, &bits, 4);
      x.push_back(sign * v);
    }
  }
  std::vector<float> y(x.size());
  expFloats(x.data(), y.data(), static_cast<int64_t>(x.size()));
  int64_t worst = 0;
  float worst_at = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto want = static_cast<float>(std::exp(static_cast<double>(x[i])));
    const int64_t d = ulpDistance(y[i], want);
    if (d > worst) {
      worst = d;
      worst_at = x[i];
    }
  }
  EXPECT_LE(worst, 2) << "at x = " << worst_at << " over " << x.size() << " values";
}

TEST(InterpVectorExp, EdgesAreDocumented) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f, -0.0f, 1.0f, -1.0f, 88.5f, 1000.0f, inf, -88.0f, -1000.0f, -inf,
                                std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(x.size());
  expFloats(x.data(), y.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_LE(ulpDistance(y[2], static_cast<float>(std::exp(1.0))), 2);
  EXPECT_LE(ulpDistance(y[3], static_cast<float>(std::exp(-1.0))), 2);
  EXPECT_EQ(y[4], inf); // above 88 (exp(88.5) is 2.7e38, still a float: documented)
  EXPECT_EQ(y[5], inf);
  EXPECT_EQ(y[6], inf);
  EXPECT_EQ(y[7], 0.0f); // exp(-88) is a float32 subnormal: flushed
  EXPECT_EQ(y[8], 0.0f);
  EXPECT_EQ(y[9], 0.0f); // a masked softmax score
  EXPECT_TRUE(std::isnan(y[10]));
}

TEST(InterpVectorExp, ResultsDoNotDependOnPositionOrInPlace) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  std::vector<float> x(37);
  for (float &v : x)
    v = dist(rng);
  std::vector<float> all(x.size());
  expFloats(x.data(), all.data(), static_cast<int64_t>(x.size()));
  for (std::size_t start = 0; start < x.size(); ++start) {
    // The same values from another offset (so in other lanes, and some in the padded tail), in place.
    std::vector<float> part(x.begin() + static_cast<std::ptrdiff_t>(start), x.end());
    expFloats(part.data(), part.data(), static_cast<int64_t>(part.size()));
    for (std::size_t i = 0; i < part.size(); ++i)
      ASSERT_EQ(part[i], all[start + i]) << "value " << start + i << " from offset " << start;
  }
}

} // namespace
} // namespace tico::interp
