#include "support/signal_cleanup.h"

#include "tico/support/log.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>

namespace tico::support {
namespace {

constexpr int kSlots = 32;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Fixed storage the handler can read without allocating: a slot's path is written before the
// slot is published (release) and read only after it is seen published (acquire).
struct Slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX] = {};
};
std::array<Slot, kSlots> g_slots;
std::mutex g_register_mutex; // registration only, never taken in the handler

// struct linux_dirent64, as getdents64 fills it.
struct Dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

void removeFlatDirectory(const char *path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  alignas(8) char buffer[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (n <= 0)
      break;
    for (long at = 0; at < n;) {
      const auto *entry = reinterpret_cast<const Dirent64 *>(buffer + at);
      at += entry->d_reclen;
      if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0)
        ::unlinkat(fd, entry->d_name, 0);
    }
  }
  ::close(fd);
  ::rmdir(path);
}

extern "C" void cleanupAndReraise(int signal) {
  const int saved_errno = errno;
  for (Slot &slot : g_slots)
    if (slot.used.load(std::memory_order_acquire))
      removeFlatDirectory(slot.path);
  errno = saved_errno;
  // The default action, as if this handler had never been installed: the process ends by the
  // signal (the signal is blocked while its handler runs and delivered once this returns).
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);
}

// At every registration, not once: a host may have set a signal back to its default since.
void installWhereDefault() {
  for (const int signal : kSignals) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0)
      continue;
    if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
      continue; // ours already, or the host handles or ignores it: its behaviour stays
    struct sigaction ours {};
    ours.sa_handler = cleanupAndReraise;
    sigemptyset(&ours.sa_mask);
    for (const int other : kSignals)
      sigaddset(&ours.sa_mask, other); // one cleanup at a time
    ours.sa_flags = SA_RESTART;
    ::sigaction(signal, &ours, nullptr);
  }
}

} // namespace

SignalCleanup::SignalCleanup(const std::string &directory) {
  std::lock_guard lock(g_register_mutex);
  if (directory.size() >= PATH_MAX)
    return;
  for (int i = 0; i < kSlots; ++i) {
    Slot &slot = g_slots[static_cast<std::size_t>(i)];
    if (slot.used.load(std::memory_order_relaxed))
      continue;
    std::memcpy(slot.path, directory.c_str(), directory.size() + 1);
    slot.used.store(true, std::memory_order_release);
    slot_ = i;
    installWhereDefault();
    return;
  }
  TICO_WARN << "more than " << kSlots << " temporary directories at once: '" << directory
            << "' is not removed if a signal ends the process";
}

SignalCleanup::~SignalCleanup() {
  if (slot_ < 0)
    return;
  std::lock_guard lock(g_register_mutex);
  g_slots[static_cast<std::size_t>(slot_)].used.store(false, std::memory_order_release);
}

} // namespace tico::support
