// parallelFor (core/interpreter/src/parallel.cpp): every item exactly once, nested calls,
// concurrent callers, exceptions, and the pool surviving many calls.
#include "parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tico::interp {
namespace {

std::vector<int> coverage(int64_t count, int64_t min_items) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
  parallelFor(count, min_items, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      ++hits[static_cast<std::size_t>(i)];
  });
  std::vector<int> out;
  for (auto &h : hits)
    out.push_back(h.load());
  return out;
}

TEST(InterpParallel, CoversEveryItemOnce) {
  for (int64_t count : {1, 2, 3, 7, 64, 1000, 4097})
    for (int64_t min_items : {1, 3, 100})
      EXPECT_EQ(coverage(count, min_items), std::vector<int>(static_cast<std::size_t>(count), 1))
          << count << " items, at least " << min_items << " per thread";
  parallelFor(0, 1, [](int64_t, int64_t) { FAIL() << "called for an empty range"; });
}

TEST(InterpParallel, NestedCallsRunAndCoverEverything) {
  std::vector<std::atomic<int>> hits(40 * 50);
  parallelFor(40, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      parallelFor(50, 1, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i)
          ++hits[static_cast<std::size_t>(b * 50 + i)];
      });
  });
  for (auto &h : hits)
    ASSERT_EQ(h.load(), 1);
}

TEST(InterpParallel, ConcurrentCallersFromSeveralThreads) {
  // A host may run two models at once; the second caller runs on its own thread meanwhile.
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round)
        if (coverage(257, 1) != std::vector<int>(257, 1))
          ++wrong;
    });
  for (auto &t : callers)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(InterpParallel, RethrowsAPartsExceptionAndStaysUsable) {
  std::atomic<int64_t> done{0};
  EXPECT_THROW(parallelFor(1000, 1,
                           [&](int64_t begin, int64_t end) {
                             if (begin == 0)
                               throw std::runtime_error("first part fails");
                             done += end - begin;
                           }),
               std::runtime_error);
  // The pool is usable afterwards.
  EXPECT_EQ(coverage(999, 1), std::vector<int>(999, 1));
}

TEST(InterpParallel, ManySmallCallsInARow) {
  int64_t total = 0;
  for (int round = 0; round < 5000; ++round) {
    std::atomic<int64_t> sum{0};
    parallelFor(16, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        sum += i;
    });
    total += sum.load();
  }
  EXPECT_EQ(total, 5000 * 120);
}

TEST(InterpParallel, CallsThatFinishBeforeTheWorkersWakeLeaveNothingBehind) {
  // The caller may do every part itself while a worker is still waking (after a pause longer
  // than the pool's spin it sleeps); the job lives on the caller's stack, so the worker must
  // not pick it up once the caller has returned. Each round's items are counted exactly once
  // (a late worker running a finished round's parts would count twice or write another round's
  // memory; the sanitizer build sees the latter).
  for (int round = 0; round < 20000; ++round) {
    if (round % 50 == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200)); // let the workers fall asleep
    std::vector<std::atomic<int>> hits(2);
    parallelFor(2, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        ++hits[static_cast<std::size_t>(i)];
    });
    ASSERT_EQ(hits[0].load(), 1) << "round " << round;
    ASSERT_EQ(hits[1].load(), 1) << "round " << round;
  }
}

} // namespace
} // namespace tico::interp
