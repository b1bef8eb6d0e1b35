// The interpreter's recycling of large tensor buffers (core/interpreter/src/buffer_pool.h).
#include "buffer_pool.h"
#include "tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace tico::interp {
namespace {

TEST(InterpBufferPool, ALargeBufferIsHandedOutAgainForTheSameSize) {
  const void *first = nullptr;
  {
    Tensor t = allocate(DType::Float32, {256, 1024}); // 1 MiB
    first = t.data;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data) % 64, 0u);
  }
  Tensor again = allocate(DType::Float32, {1024, 256}); // same bytes, another shape
  if (bufferPoolEnabled())
    EXPECT_EQ(again.data, first) << "the freed buffer was not reused";
  else
    EXPECT_EQ(pooledBufferBytes(), 0u) << "sanitizer builds must not pool";
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(again.data) % 64, 0u);
}

TEST(InterpBufferPool, SmallBuffersAreNotPooledAndTheCapHolds) {
  const std::size_t before = pooledBufferBytes();
  { Tensor small = allocate(DType::Float32, {16}); }
  EXPECT_EQ(pooledBufferBytes(), before) << "a 64-byte buffer went into the pool";
  {
    std::vector<Tensor> many;
    for (int i = 0; i < 100; ++i) // 100 MiB, more than the cap
      many.push_back(allocate(DType::Float32, {1 << 18}));
  }
  EXPECT_LE(pooledBufferBytes(), kMaxPooledBytes);
  if (bufferPoolEnabled())
    EXPECT_GT(pooledBufferBytes(), 0u);
}

TEST(InterpBufferPool, BuffersFreedOnOtherThreadsAreSafe) {
  // Outputs handed to a host may be released on any thread.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        Tensor a = allocate(DType::Float32, {64, 1024 + 16 * (i % 5)});
        a.mut<float>()[0] = 1.0f;
        a.mut<float>()[a.numel() - 1] = 2.0f;
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_LE(pooledBufferBytes(), kMaxPooledBytes);
}

} // namespace
} // namespace tico::interp
