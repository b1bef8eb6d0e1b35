#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
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

namespace {

// True on a thread while it runs a part of a parallelFor: a nested call runs there serially.
thread_local bool inside_part = false;

// Workers that live for the whole process and sleep on a condition variable between calls.
// Starting threads on every call cost tens of microseconds per small operator; spinning workers
// (OpenMP's default wait policy, 200 ms) made two-thread runs 5-12x slower whenever the machine
// had other work, as shared CI machines do. Waking a sleeping worker costs a futex call and,
// when its core has gone idle, the core's wake-up: measured, about 40 us per operator, which
// took all the gain of a second thread on products of 65 rows (a 65 x 256 x 1024 product:
// 170 us on one thread, 85 us on two spinning ones). So waiting spins for a short, bounded
// while (kSpin) before it sleeps: back-to-back operators find their workers awake, and an idle
// interpreter costs at most kSpin of CPU per call.
constexpr auto kSpin = std::chrono::microseconds(50);

// Spins until done() or kSpin has passed; true when done() held.
template <typename Done> bool spinFor(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done())
      return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until)
      return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

class Pool {
public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i)
      std::thread([this] { work(); }).detach(); // never joined: the pool lives until exit
  }

  // Runs part(0 .. parts-1) on the workers and the calling thread; returns when all are done.
  // Returns false without running anything when another thread's call holds the pool.
  bool run(int64_t parts, const std::function<void(int64_t)> &part) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock())
      return false;
    Job job{&part, parts};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job.unfinished = parts;
      job_ = &job;
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    const int64_t done = takeParts(job);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job.unfinished -= done;
    }
    // The job lives on this stack frame: wait until no worker still holds it. The spin only
    // saves the sleep; the check that counts is the one under the lock, in the same critical
    // section that retracts the job, so a worker that wakes late cannot pick it up after the
    // check and use it once this frame is gone.
    const auto finished = [&] { return job.unfinished.load() == 0 && job.users.load() == 0; };
    spinFor(finished);
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, finished);
    job_ = nullptr;
    return true;
  }

private:
  struct Job {
    const std::function<void(int64_t)> *part;
    int64_t parts;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> unfinished{0}; // changed under mutex_ (then finished_ is notified); read by spinning
    std::atomic<int> users{0};          // workers inside takeParts; likewise
  };

  void work() {
    uint64_t seen = 0;
    for (;;) {
      Job *job = nullptr;
      spinFor([&] { return generation_.load() != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        seen = generation_.load();
        job = job_;
        if (job == nullptr)
          continue;
        ++job->users;
      }
      const int64_t done = takeParts(*job);
      std::lock_guard<std::mutex> lock(mutex_); // one step: the caller may free the job right after
      --job->users;
      job->unfinished -= done;
      finished_.notify_all();
    }
  }

  static int64_t takeParts(Job &job) {
    int64_t done = 0;
    inside_part = true;
    for (int64_t i = job.next.fetch_add(1); i < job.parts; i = job.next.fetch_add(1)) {
      (*job.part)(i);
      ++done;
    }
    inside_part = false;
    return done;
  }

  std::mutex busy_;  // one parallelFor at a time uses the workers
  std::mutex mutex_; // guards job_, generation_ and the jobs' counters
  std::condition_variable wake_, finished_;
  Job *job_ = nullptr;                // guarded by mutex_
  std::atomic<uint64_t> generation_{0}; // changed under mutex_; read by spinning workers
};

Pool &pool() {
  static Pool *instance = new Pool(threadCount() - 1); // leaked on purpose: detached workers use it until exit
  return *instance;
}

} // namespace

void parallelFor(int64_t count, int64_t min_items_per_thread, const std::function<void(int64_t, int64_t)> &fn) {
  if (count <= 0)
    return;
  const int64_t useful = std::max<int64_t>(1, count / std::max<int64_t>(1, min_items_per_thread));
  const int64_t threads = std::min<int64_t>(threadCount(), useful);
  if (threads <= 1 || inside_part) {
    fn(0, count);
    return;
  }
  // Exceptions stay inside their part; the first one is rethrown here once every part is done.
  const int64_t chunk = (count + threads - 1) / threads;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  const std::function<void(int64_t)> part = [&](int64_t t) {
    const int64_t begin = t * chunk, end = std::min(count, begin + chunk);
    if (begin >= end)
      return;
    try {
      fn(begin, end);
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  if (!pool().run(threads, part)) {
    fn(0, count); // the workers are busy with another thread's call
    return;
  }
  for (auto &error : errors)
    if (error)
      std::rethrow_exception(error);
}

} // namespace tico::interp
