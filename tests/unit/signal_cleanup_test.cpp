// The calibration offload directory is removed when SIGINT, SIGTERM or SIGHUP ends the process
// (tracker issue 31: it was left behind), the process still ends by that signal, and a host that
// handles a signal itself keeps its handler. Each case runs in a forked child.
#include "quant/offload_store.h"
#include "support/signal_cleanup.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace tico {
namespace {

namespace fs = std::filesystem;

struct ChildResult {
  int status = 0;
  std::string directory; // what the child created, reported through a pipe
};

// Forks; the child runs `body(report)` (which writes the directory it made to `report`) and, if
// it returns, exits 0.
template <class Body> ChildResult inChild(Body body) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    body(pipe_fds[1]);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  ChildResult result;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    result.directory.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  ::waitpid(pid, &result.status, 0);
  return result;
}

void report(int fd, const std::string &text) {
  [[maybe_unused]] auto n = ::write(fd, text.data(), text.size());
  ::close(fd);
}

class SignalCleanupTest : public ::testing::TestWithParam<int> {};

TEST_P(SignalCleanupTest, OffloadDirectoryGoesAwayAndTheSignalStillEndsTheProcess) {
  const int signal = GetParam();
  const ChildResult r = inChild([signal](int fd) {
    for (const int s : {SIGINT, SIGTERM, SIGHUP})
      std::signal(s, SIG_DFL); // whatever the test runner set: the child starts from the defaults
    quant::OffloadStore store("");
    store.save(TensorData::fromVector(DType::Float32, {4}, std::vector<float>{1, 2, 3, 4}));
    store.save(TensorData::fromVector(DType::Int64, {2}, std::vector<int64_t>{5, 6}));
    report(fd, store.directory());
    ::raise(signal);
    ::_exit(42); // not reached: the signal ends the process
  });
  ASSERT_FALSE(r.directory.empty());
  ASSERT_TRUE(WIFSIGNALED(r.status)) << "child exited with status " << r.status;
  EXPECT_EQ(WTERMSIG(r.status), signal);
  EXPECT_FALSE(fs::exists(r.directory)) << r.directory << " was left behind";
  std::error_code ec;
  fs::remove_all(r.directory, ec);
}

INSTANTIATE_TEST_SUITE_P(Signals, SignalCleanupTest, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto &info) {
                           return std::string(info.param == SIGINT    ? "SIGINT"
                                              : info.param == SIGTERM ? "SIGTERM"
                                                                      : "SIGHUP");
                         });

void countingHandler(int) {}

TEST(SignalCleanup, AHandlerTheHostInstalledIsKept) {
  // Python handles SIGINT itself (KeyboardInterrupt): registering a directory must not replace
  // that, and the directory is the destructor's to remove.
  const ChildResult r = inChild([](int fd) {
    std::signal(SIGINT, countingHandler);
    std::signal(SIGTERM, SIG_IGN);
    std::string dir;
    {
      quant::OffloadStore store("");
      dir = store.directory();
      struct sigaction now {};
      ::sigaction(SIGINT, nullptr, &now);
      const bool int_kept = now.sa_handler == countingHandler;
      ::sigaction(SIGTERM, nullptr, &now);
      const bool term_kept = now.sa_handler == SIG_IGN;
      ::raise(SIGINT); // handled by countingHandler: the process goes on
      report(fd, std::string(int_kept && term_kept ? "kept " : "replaced ") + dir);
    }
    ::_exit(fs::exists(dir) ? 3 : 0); // the destructor removed it
  });
  ASSERT_TRUE(WIFEXITED(r.status)) << r.status;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << "the directory outlived its store";
  EXPECT_EQ(r.directory.rfind("kept ", 0), 0u) << r.directory;
}

TEST(SignalCleanup, AReleasedDirectoryIsNotTouched) {
  // Once unregistered (the store's destructor ran), a later signal leaves an unrelated directory
  // of the same name alone.
  const ChildResult r = inChild([](int fd) {
    std::signal(SIGTERM, SIG_DFL);
    std::string dir;
    {
      quant::OffloadStore store("");
      dir = store.directory();
    }
    fs::create_directory(dir); // someone else's now
    report(fd, dir);
    ::raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_TRUE(fs::exists(r.directory)) << "a directory no longer registered was removed";
  std::error_code ec;
  fs::remove_all(r.directory, ec);
}

} // namespace
} // namespace tico
