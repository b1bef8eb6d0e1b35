// Runs the command-line tools as child processes for tests of their file handling.
//
// Every child is killed after a timeout, so a regression that makes a tool block (opening a
// FIFO, reading /dev/zero) fails its test instead of hanging the suite.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tico::cli_test {

struct ToolResult {
  int exit_code = -1; // -1: killed after the timeout
  std::string output; // stdout and stderr together
};

// Runs `program args...` in `cwd`, waiting at most `timeout`.
inline ToolResult runTool(const std::string &program, const std::vector<std::string> &args, const std::string &cwd,
                          std::chrono::seconds timeout = std::chrono::seconds(20)) {
  const std::string log = cwd + "/.tool-output";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::chdir(cwd.c_str()) != 0)
      ::_exit(127);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::close(fd);
    std::vector<char *> argv{const_cast<char *>(program.c_str())};
    for (const auto &a : args)
      argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  ToolResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::ifstream in(log, std::ios::binary);
  result.output.assign(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove(log);
  return result;
}

// A fresh directory under the system temp folder, removed by the destructor.
class ScratchDir {
public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tico-cli-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

inline std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void writeAll(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline unsigned modeOf(const std::string &path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st.st_mode & 07777;
}

} // namespace tico::cli_test
