// Temporary directories removed when a signal ends the process (SIGINT, SIGTERM, SIGHUP).
//
// A destructor removes such a directory when the process exits normally or by an exception; a
// signal whose default action terminates the process skips destructors and leaves it behind
// (tracker issue 31: the calibration offload directory after Ctrl-C). The handler installed here
// removes the registered directories' files and the directories, then restores the default action
// and raises the signal again, so the process still ends by that signal (its exit status and
// core-dump behaviour are unchanged).
//
// Only a signal whose disposition is the default (SIG_DFL) when a directory is registered
// gets the handler: a host that handles or ignores the signal (Python turns SIGINT into
// KeyboardInterrupt, after which the destructor cleans up) keeps its own behaviour.
//
// The directories must be flat (files only): the handler runs in signal context and uses only
// async-signal-safe calls (open, getdents64, unlinkat, rmdir).
#pragma once

#include <string>

namespace tico::support {

// Registers `directory` for removal on SIGINT / SIGTERM / SIGHUP until the returned token is
// released (or destroyed). At most 32 directories are registered at once; past that, the extra
// ones are left to their destructors (a warning is logged).
class SignalCleanup {
public:
  explicit SignalCleanup(const std::string &directory);
  ~SignalCleanup();
  SignalCleanup(const SignalCleanup &) = delete;
  SignalCleanup &operator=(const SignalCleanup &) = delete;

private:
  int slot_ = -1;
};

} // namespace tico::support
