// Public entry points of the Circle writer and the atomic file replacement.
//
// The whole metadata FlatBuffer is built and laid out before the destination directory is
// touched, so model errors never leave anything behind. The file itself is written to a
// temporary sibling, synced, and renamed over the destination: readers see either the old
// file or the complete new one, never a prefix.

#include "writer_detail.h"

#include "tico/support/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace tico {
namespace {

using circle_writer::CircleImage;

std::string parentDirectory(const std::string &path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

// The permission bits a plain open(O_CREAT, 0666) would give, so the result does not inherit
// mkstemp's private 0600. An existing destination keeps its own mode.
mode_t permissionsFor(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    return st.st_mode & 07777;
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

[[noreturn]] void failOs(const std::string &path, const std::string &action, int err) {
  throw Error("cannot write Circle file '" + path + "': " + action + ": " + std::strerror(err));
}

// Owns the temporary file until it has been renamed into place.
class TemporaryFile {
public:
  explicit TemporaryFile(const std::string &destination) : destination_(destination) {
    std::string pattern = destination + ".tmp.XXXXXX";
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0)
      throw Error("cannot write Circle file '" + destination + "': cannot create a temporary file in '" +
                  parentDirectory(destination) + "': " + std::strerror(errno));
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
      failOs(destination_, "setting permissions", errno);
    if (::fsync(fd_) != 0)
      failOs(destination_, "fsync", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      failOs(destination_, "close", errno);
    if (::rename(path_.c_str(), destination_.c_str()) != 0)
      failOs(destination_, "renaming '" + path_ + "' into place", errno);
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
  std::string path_;
  int fd_ = -1;
};

} // namespace

void writeCircleFile(const CircleModel &model, const std::string &path, const CircleWriteOptions &options) {
  if (path.empty())
    throw Error("cannot write Circle file: the output path is empty");
  auto image = std::make_unique<CircleImage>();
  circle_writer::buildCircleImage(model, options, *image);
  const mode_t mode = permissionsFor(path);
  TemporaryFile temporary(path);
  circle_writer::FileSink sink(temporary.fd(), path);
  circle_writer::streamCircleImage(*image, sink);
  temporary.commit(mode);
}

void serializeCircleInto(const CircleModel &model, const std::function<std::byte *(std::size_t size)> &allocate,
                         const CircleWriteOptions &options) {
  auto image = std::make_unique<CircleImage>();
  circle_writer::buildCircleImage(model, options, *image);
  if (image->file_size > std::numeric_limits<std::size_t>::max())
    throw Error("cannot serialize Circle model: " + std::to_string(image->file_size) + " bytes do not fit in memory");
  const auto size = static_cast<std::size_t>(image->file_size);
  std::byte *destination = allocate(size);
  if (destination == nullptr && size != 0)
    throw Error("cannot serialize Circle model: no memory for " + std::to_string(size) + " bytes");
  circle_writer::MemorySink sink(destination, size);
  circle_writer::streamCircleImage(*image, sink);
}

std::vector<uint8_t> serializeCircle(const CircleModel &model, const CircleWriteOptions &options) {
  std::vector<uint8_t> bytes;
  serializeCircleInto(model, [&](std::size_t size) {
    bytes.resize(size);
    return reinterpret_cast<std::byte *>(bytes.data());
  }, options);
  return bytes;
}

} // namespace tico
