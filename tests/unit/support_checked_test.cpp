// tico/support/checked.h: element counts and byte sizes that refuse to wrap around.
#include "tico/support/checked.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace tico {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::string messageOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Checked, MulAndAdd) {
  EXPECT_EQ(checkedMul(6, 7), 42);
  EXPECT_EQ(checkedMul(-3, 4), -12);
  EXPECT_EQ(checkedMul(kMax, 1), kMax);
  EXPECT_FALSE(checkedMul(kMax, 2));
  EXPECT_FALSE(checkedMul(int64_t{1} << 32, int64_t{1} << 31));
  EXPECT_EQ(checkedMul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(checkedAdd(kMax - 1, 1), kMax);
  EXPECT_FALSE(checkedAdd(kMax, 1));
  EXPECT_FALSE(checkedAdd(std::numeric_limits<int64_t>::min(), -1));
}

TEST(Checked, ElementCount) {
  EXPECT_EQ(elementCount(std::vector<int64_t>{}), 1);
  EXPECT_EQ(elementCount(std::vector<int64_t>{2, 3, 4}), 24);
  EXPECT_EQ(elementCount(std::vector<int32_t>{2147483647, 2147483647}), int64_t{2147483647} * 2147483647);
  EXPECT_FALSE(elementCount(std::vector<int32_t>{2147483647, 2147483647, 4}));
  EXPECT_FALSE(elementCount(std::vector<int64_t>{2, -1}));
  // A zero dimension makes the tensor empty even when the other dims would overflow.
  EXPECT_EQ(elementCount(std::vector<int64_t>{kMax, kMax, 0}), 0);
}

TEST(Checked, ByteSize) {
  EXPECT_EQ(byteSize(std::vector<int64_t>{2, 3}, 4), 24);
  EXPECT_EQ(byteSize(std::vector<int64_t>{kMax / 4}, 4), kMax / 4 * 4);
  EXPECT_FALSE(byteSize(std::vector<int64_t>{kMax / 4 + 1}, 4));
  EXPECT_EQ(byteSize(std::vector<int64_t>{kMax, 0}, 16), 0);
}

TEST(Checked, ThrowingFormsNameWhatAndTheShape) {
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{5, 6}, "x"), 30);
  EXPECT_EQ(checkedByteSize(std::vector<int64_t>{5, 6}, 2, "x"), 60);
  EXPECT_EQ(messageOf([] { checkedElementCount(std::vector<int64_t>{kMax, 2}, "weight 'w'"); }),
            "weight 'w': shape [9223372036854775807, 2] has an element count that overflows int64");
  EXPECT_EQ(messageOf([] { checkedByteSize(std::vector<int64_t>{kMax / 2}, 8, "buffer 3"); }),
            "buffer 3: shape [4611686018427387903] has a byte size (8-byte elements) that overflows int64");
  EXPECT_EQ(messageOf([] { checkedElementCount(std::vector<int64_t>{3, -2}, "input 'x'"); }),
            "input 'x': shape [3, -2] has a negative dimension (-2)");
}

} // namespace
} // namespace tico
