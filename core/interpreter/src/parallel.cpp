#include "parallel.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace tico::interp {

int threadCount() {
  static const int count = [] {
    if (const char *value = std::getenv("TICO_INTERPRETER_THREADS")) {
      try {
        return std::clamp(std::stoi(value), 1, 64);
      } catch (const std::exception &) {
        return 1; // a malformed setting means "no threads", never a crash
      }
    }
    const unsigned hardware = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(hardware, 1u, 8u));
  }();
  return count;
}

void parallelFor(int64_t count, int64_t min_items_per_thread, const std::function<void(int64_t, int64_t)> &fn) {
  if (count <= 0)
    return;
  const int64_t useful = std::max<int64_t>(1, count / std::max<int64_t>(1, min_items_per_thread));
  const int64_t threads = std::min<int64_t>(threadCount(), useful);
  if (threads <= 1) {
    fn(0, count);
    return;
  }
  const int64_t chunk = (count + threads - 1) / threads;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(threads - 1));
  for (int64_t t = 1; t < threads; ++t) {
    const int64_t begin = t * chunk;
    const int64_t end = std::min(count, begin + chunk);
    if (begin >= end)
      break;
    workers.emplace_back([&, t, begin, end] {
      try {
        fn(begin, end);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  }
  try {
    fn(0, std::min(count, chunk));
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto &worker : workers)
    worker.join();
  for (auto &error : errors)
    if (error)
      std::rethrow_exception(error);
}

} // namespace tico::interp
