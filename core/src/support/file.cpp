// Input type checks, output-target checks and the atomic file replacement (see file.h).

#include "tico/support/file.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tico {
namespace {

std::string quotePath(const std::string &path) { return "'" + path + "'"; }

std::string parentDirectory(const std::string &path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// The permission bits a plain open(O_CREAT, 0666) would give, so a new file does not inherit
// mkstemp's private 0600.
mode_t defaultPermissions() {
  // Reading the umask through umask() would briefly change it for every thread; the kernel
  // reports it in /proc/self/status instead.
  mode_t mask = 022;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Umask:", 0) == 0) {
      mask = static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
      break;
    }
  return 0666 & ~mask;
}

[[noreturn]] void failOs(const std::string &what, const std::string &path, const std::string &action, int err) {
  throw Error("cannot write " + what + " " + quotePath(path) + ": " + action + ": " + std::strerror(err));
}

// A FIFO or character device keeps its identity: it is opened for writing as it is, without
// O_CREAT or O_TRUNC, and written sequentially.
void writeInPlace(const std::string &path, const std::string &what, const std::function<void(int fd)> &write) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    failOs(what, path, "open", errno);
  try {
    write(fd);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0)
    failOs(what, path, "close", errno);
}

// The file a write to `path` replaces: `path` itself, or for a symbolic link the file it
// names (so the link survives). A link to nothing or a loop is refused.
std::string followOutputLink(const std::string &path, const std::string &what) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode))
    return path;
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) {
    const int err = errno;
    if (err == ELOOP)
      throw Error("cannot write " + what + " " + quotePath(path) + ": it is a symbolic link loop");
    std::error_code ec;
    const auto points_to = std::filesystem::read_symlink(path, ec);
    throw Error("cannot write " + what + " " + quotePath(path) + ": it is a symbolic link to " +
                (ec ? std::string("a missing file") : quotePath(points_to.string()) + ", which does not exist") +
                "; name the file to create instead of the link");
  }
  std::error_code ec;
  const auto resolved = std::filesystem::canonical(path, ec);
  if (ec)
    throw Error("cannot write " + what + " " + quotePath(path) + ": resolving the symbolic link: " + ec.message());
  return resolved.string();
}

// Owns the temporary sibling until it has been renamed over the destination.
class TemporaryFile {
public:
  TemporaryFile(const std::string &destination, const std::string &what) : destination_(destination), what_(what) {
    std::string pattern = destination + ".tmp.XXXXXX";
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0)
      failOs(what, destination, "cannot create a temporary file in " + quotePath(parentDirectory(destination)), errno);
    path_ = pattern;
  }
  ~TemporaryFile() {
    if (fd_ >= 0)
      ::close(fd_);
    if (!path_.empty())
      ::unlink(path_.c_str());
  }
  TemporaryFile(const TemporaryFile &) = delete;
  TemporaryFile &operator=(const TemporaryFile &) = delete;

  int fd() const { return fd_; }

  // Syncs, closes and renames over the destination; afterwards nothing is left to clean up.
  void commit(mode_t mode) {
    if (::fchmod(fd_, mode) != 0)
      failOs(what_, destination_, "setting permissions", errno);
    if (::fsync(fd_) != 0)
      failOs(what_, destination_, "fsync", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      failOs(what_, destination_, "close", errno);
    if (::rename(path_.c_str(), destination_.c_str()) != 0)
      failOs(what_, destination_, "renaming " + quotePath(path_) + " into place", errno);
    path_.clear();
    syncDirectory();
  }

private:
  // Makes the rename itself durable. The new file is already complete and in place, so a
  // failure here is not reported as a failed write.
  void syncDirectory() const {
    const int dir = ::open(parentDirectory(destination_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

  std::string destination_;
  std::string what_;
  std::string path_;
  int fd_ = -1;
};

bool writableInPlace(mode_t mode) { return S_ISFIFO(mode) || S_ISCHR(mode); }

} // namespace

std::string describeFileType(unsigned mode) {
  switch (mode & S_IFMT) {
  case S_IFREG:
    return "a regular file";
  case S_IFDIR:
    return "a directory";
  case S_IFIFO:
    return "a FIFO";
  case S_IFCHR:
    return "a character device";
  case S_IFBLK:
    return "a block device";
  case S_IFSOCK:
    return "a socket";
  case S_IFLNK:
    return "a symbolic link";
  default:
    return "not a regular file";
  }
}

void requireRegularFile(const std::string &path, const std::string &what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error("cannot read " + what + " " + quotePath(path) + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    throw Error(what + " " + quotePath(path) + " is " + describeFileType(st.st_mode) + ", not a regular file");
}

std::string readRegularFile(const std::string &path, const std::string &what, std::size_t max_bytes) {
  requireRegularFile(path, what);
  // O_NONBLOCK: should the path have been swapped for a FIFO since the check, open() still
  // returns at once and fstat() below rejects it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error("cannot read " + what + " " + quotePath(path) + ": " + std::strerror(errno));
  std::string text;
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      throw Error(what + " " + quotePath(path) + " is not a regular file");
    const std::string too_large = what + " " + quotePath(path) + " is larger than " +
                                  std::to_string(max_bytes >> 20) + " MiB (" + std::to_string(max_bytes) +
                                  " bytes); refusing to read it";
    if (static_cast<unsigned long long>(st.st_size) > max_bytes)
      throw Error(too_large);
    // The size is checked again while reading: the file may grow after fstat().
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        throw Error("cannot read " + what + " " + quotePath(path) + ": " + std::strerror(errno));
      }
      if (n == 0)
        break;
      if (text.size() + static_cast<std::size_t>(n) > max_bytes)
        throw Error(too_large);
      text.append(buffer, static_cast<std::size_t>(n));
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

void checkOutputTarget(const std::string &output, const std::vector<std::string> &inputs, bool force) {
  followOutputLink(output, "output"); // a dangling link or a loop fails now, before any work
  struct stat target {};
  if (::stat(output.c_str(), &target) != 0)
    return; // nothing there yet (or unreachable: the write itself reports that)
  for (const auto &input : inputs) {
    struct stat source {};
    if (input.empty() || ::stat(input.c_str(), &source) != 0)
      continue;
    if (source.st_dev == target.st_dev && source.st_ino == target.st_ino)
      throw Error("output " + quotePath(output) + " is the same file as the input " + quotePath(input) +
                  "; refusing to overwrite an input (nothing was written)");
  }
  if (S_ISREG(target.st_mode)) {
    // Root passes every access() check, so the owner's write bit is looked at as well.
    const bool read_only = (target.st_mode & S_IWUSR) == 0 || ::access(output.c_str(), W_OK) != 0;
    if (read_only && !force)
      throw Error("output " + quotePath(output) + " is read-only (mode " + octal(target.st_mode) +
                  "); use --force to replace it");
    return;
  }
  if (!writableInPlace(target.st_mode))
    throw Error("output " + quotePath(output) + " is " + describeFileType(target.st_mode) +
                "; only regular files, FIFOs and character devices can be written");
}

void checkOutputOutside(const std::string &output, const std::string &directory, const std::string &what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (directory.empty() || !fs::is_directory(directory, ec))
    return;
  const fs::path dir = fs::canonical(directory, ec);
  if (ec)
    return;
  // The output may not exist yet: its deepest existing ancestor, resolved, decides.
  fs::path at = fs::absolute(output, ec).lexically_normal();
  for (fs::path probe = at; !probe.empty(); probe = probe.parent_path()) {
    std::error_code probe_ec;
    if (fs::exists(probe, probe_ec)) {
      const fs::path resolved = fs::canonical(probe, probe_ec);
      if (probe_ec)
        return;
      const auto [d, r] = std::mismatch(dir.begin(), dir.end(), resolved.begin(), resolved.end());
      if (d == dir.end())
        throw Error("output " + quotePath(output) + " is inside the " + what + " " + quotePath(directory) +
                    "; refusing to write into an input (nothing was written)");
      return;
    }
    if (probe == probe.parent_path())
      return;
  }
}

void checkDistinctOutputs(const std::vector<std::pair<std::string, std::string>> &outputs) {
  namespace fs = std::filesystem;
  auto key = [](const std::string &path) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? fs::absolute(path).lexically_normal().string() : p.string();
  };
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto &[role_a, a] = outputs[i];
      const auto &[role_b, b] = outputs[j];
      if (a.empty() || b.empty())
        continue;
      struct stat sa {}, sb {};
      const bool same_inode = ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
                              sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
      if (same_inode || key(a) == key(b))
        throw Error(role_a + " " + quotePath(a) + " and " + role_b + " " + quotePath(b) +
                    " name the same file; one output would replace the other (nothing was written)");
    }
}

void writeFileSafely(const std::string &path, const std::string &what, const std::function<void(int fd)> &write) {
  OutputBatch batch;
  batch.add(path, what, write);
  batch.commit();
}

void writeAll(int fd, const void *data, std::size_t size, const std::string &what, const std::string &path) {
  const auto *at = static_cast<const char *>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, at, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw Error("cannot write " + what + " '" + path + "': " + std::strerror(errno));
    at += n;
    size -= static_cast<std::size_t>(n);
  }
}

namespace {

std::function<void(int)> textWriter(const std::string &path, const std::string &what, const std::string &text) {
  return [&path, &what, &text](int fd) { writeAll(fd, text.data(), text.size(), what, path); };
}

} // namespace

void writeTextFile(const std::string &path, const std::string &what, const std::string &text) {
  writeFileSafely(path, what, textWriter(path, what, text));
}

struct OutputBatch::Staged {
  Staged(const std::string &target, const std::string &what) : temporary(target, what) {}
  TemporaryFile temporary;
  mode_t mode = 0;
};

OutputBatch::OutputBatch() = default;
OutputBatch::~OutputBatch() = default; // uncommitted temporaries are removed by their destructors

void OutputBatch::add(const std::string &path, const std::string &what, const std::function<void(int fd)> &write) {
  if (path.empty())
    throw Error("cannot write " + what + ": the output path is empty");
  const std::string target = followOutputLink(path, what);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw Error("cannot write " + what + " " + quotePath(path) + ": it is a directory");
  if (exists && writableInPlace(st.st_mode)) {
    writeInPlace(target, what, write);
    return;
  }
  if (exists && !S_ISREG(st.st_mode))
    throw Error("cannot write " + what + " " + quotePath(path) + ": it is " + describeFileType(st.st_mode) +
                "; only regular files, FIFOs and character devices can be written");
  // A replaced file keeps its permission mode; a new one gets what open(O_CREAT, 0666) gives.
  auto staged = std::make_unique<Staged>(target, what);
  staged->mode = exists ? (st.st_mode & 07777) : defaultPermissions();
  write(staged->temporary.fd());
  staged_.push_back(std::move(staged));
}

void OutputBatch::addText(const std::string &path, const std::string &what, const std::string &text) {
  add(path, what, textWriter(path, what, text));
}

void OutputBatch::commit() {
  for (auto &staged : staged_)
    staged->temporary.commit(staged->mode);
  staged_.clear();
}

} // namespace tico
