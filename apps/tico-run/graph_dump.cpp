// Pictures of the graph after each stage: <dir>/NN_<stage>.dot, rendered to .png with Graphviz
// when `dot` is installed (like the original's TICO_GRAPH_DUMP).
//
// The folder may be shared with other users (the working directory), so nothing here follows a
// link someone planted: the default folder is created fresh with a random name and mode 0700
// inside a `.tico_tmp` that must be a real directory of ours, and every file is created
// exclusively (an existing entry of that name is removed first, O_EXCL | O_NOFOLLOW); `dot`
// writes the picture to its standard output, which is such a file, never to a path.
#include "tool.h"

#include "tico/ir/dot.h"
#include "tico/support/error.h"
#include "tico/support/file.h"
#include "tico/support/log.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

namespace tico::run {
namespace fs = std::filesystem;

namespace {

std::string slug(const std::string &title) {
  std::string out;
  for (char c : title)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::string findDot() {
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / "dot";
    std::error_code ec;
    if (!candidate.empty() && fs::exists(candidate, ec))
      return candidate.string();
    start = end + 1;
  }
  return {};
}

// A new file at `path` for writing: whatever has that name (an earlier run's file, or a link
// planted there) is removed, and the file is created exclusively, so no write goes elsewhere.
int createFresh(const std::string &path) {
  ::unlink(path.c_str()); // ENOENT is fine; a directory of that name makes open() fail below
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error("cannot create the graph dump file '" + path + "': " + std::strerror(errno));
  return fd;
}

// Runs `dot -Tpng in` without a shell, its standard output the freshly created `out`; returns
// whether it succeeded.
bool renderPng(const std::string &dot, const std::string &in, const std::string &out) {
  const int fd = createFresh(out);
  std::vector<std::string> args{dot, "-Tpng", in};
  std::vector<char *> argv;
  for (auto &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  pid_t pid;
  const int spawned = posix_spawn(&pid, dot.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fd);
  if (spawned != 0)
    return false;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0)
    return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

std::string defaultGraphDumpDir() {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", std::localtime(&now));
  // .tico_tmp is shared by every run in this folder: it must be a real directory (not a link)
  // owned by this user; each run's folder in it is new, randomly named and private.
  const std::string root = ".tico_tmp";
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error("cannot create the graph dump folder '" + root + "': " + std::strerror(errno));
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("'" + root + "' is not a directory (a symbolic link?); remove it, or name a folder with --dump-graphs");
  if (st.st_uid != ::geteuid())
    throw Error("'" + root + "' belongs to another user; remove it, or name a folder with --dump-graphs");
  std::string dir = root + "/session_" + stamp + "_XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr)
    throw Error("cannot create a graph dump folder in '" + root + "': " + std::strerror(errno));
  return dir;
}

GraphDumper::GraphDumper(std::string dir) : dir_(std::move(dir)), dot_(findDot()) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec)
    throw Error("cannot create the graph dump folder '" + dir_ + "': " + ec.message());
  if (dot_.empty())
    TICO_WARN << "Graphviz 'dot' not found: graph dumps are written as .dot files only";
}

void GraphDumper::dump(const std::string &title, const Graph &graph) {
  char prefix[8];
  std::snprintf(prefix, sizeof prefix, "%02d_", index_++);
  fs::path base = fs::path(dir_) / (prefix + slug(title));
  std::string dot_path = base.string() + ".dot";
  {
    DotOptions options;
    options.title = title;
    const int fd = createFresh(dot_path);
    try {
      const std::string text = printDot(graph, options);
      writeAll(fd, text.data(), text.size(), "graph dump file", dot_path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0)
      throw Error("cannot write the graph dump file '" + dot_path + "': " + std::strerror(errno));
  }
  if (!dot_.empty() && !renderPng(dot_, dot_path, base.string() + ".png"))
    TICO_WARN << "Graphviz could not render " << dot_path;
  TICO_INFO << "graph after " << title << " written to " << dot_path;
}

} // namespace tico::run
