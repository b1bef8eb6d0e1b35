#include "parallel.h"

#include <omp.h>

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

// On OpenMP, the runtime oneDNN's products use too (gemm.cpp): one pool of threads that stay
// alive between operators, where starting threads per call cost tens of microseconds on every
// small operator. Inside a region (a kernel that splits work and calls gemmNT or parallelFor in
// each part) a nested call runs on its caller's thread: OpenMP leaves nested regions serial.
void parallelFor(int64_t count, int64_t min_items_per_thread, const std::function<void(int64_t, int64_t)> &fn) {
  if (count <= 0)
    return;
  const int64_t useful = std::max<int64_t>(1, count / std::max<int64_t>(1, min_items_per_thread));
  const int64_t threads = std::min<int64_t>(threadCount(), useful);
  if (threads <= 1 || omp_in_parallel()) {
    fn(0, count);
    return;
  }
  // An exception must not leave an OpenMP region: each thread keeps its own and the first one is
  // rethrown on the calling thread once all have finished.
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    // The team may be smaller than asked (OMP_THREAD_LIMIT); the ranges follow the real size.
    const int64_t team = omp_get_num_threads();
    const int64_t t = omp_get_thread_num();
    const int64_t chunk = (count + team - 1) / team;
    const int64_t begin = std::min(count, t * chunk);
    const int64_t end = std::min(count, begin + chunk);
    if (begin < end) {
      try {
        fn(begin, end);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    }
  }
  for (auto &error : errors)
    if (error)
      std::rethrow_exception(error);
}

} // namespace tico::interp
