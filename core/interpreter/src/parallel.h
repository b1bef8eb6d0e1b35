// Splitting a kernel's outer loop over threads.
//
// The thread count is TICO_INTERPRETER_THREADS when set (1 disables threading), otherwise the
// number of hardware threads (at most 8). Work below `min_items_per_thread` items per thread
// stays on the calling thread, so small operators never pay for waking a thread. The threads are
// a pool that sleeps between calls; a call made from inside another parallelFor, or while
// another thread's call holds the pool, runs on its caller's thread.
#pragma once

#include <cstdint>
#include <functional>

namespace tico::interp {

int threadCount();

// Calls fn(begin, end) on disjoint ranges covering [0, count); returns when all are done.
// Exceptions thrown by fn are rethrown on the calling thread.
void parallelFor(int64_t count, int64_t min_items_per_thread, const std::function<void(int64_t, int64_t)> &fn);

} // namespace tico::interp
