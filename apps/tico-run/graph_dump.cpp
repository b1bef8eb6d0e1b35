// Pictures of the graph after each stage: <dir>/NN_<stage>.dot, rendered to .png with Graphviz
// when `dot` is installed (like the original's TICO_GRAPH_DUMP).
#include "tool.h"

#include "tico/ir/dot.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
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

// Runs `dot -Tpng in -o out` without a shell; returns whether it succeeded.
bool renderPng(const std::string &dot, const std::string &in, const std::string &out) {
  std::vector<std::string> args{dot, "-Tpng", in, "-o", out};
  std::vector<char *> argv;
  for (auto &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
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
  return (fs::path(".tico_tmp") / (std::string("session_") + stamp)).string();
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
    std::ofstream out(dot_path);
    DotOptions options;
    options.title = title;
    out << printDot(graph, options);
    if (!out)
      throw Error("cannot write '" + dot_path + "'");
  }
  if (!dot_.empty() && !renderPng(dot_, dot_path, base.string() + ".png"))
    TICO_WARN << "Graphviz could not render " << dot_path;
  TICO_INFO << "graph after " << title << " written to " << dot_path;
}

} // namespace tico::run
