// Safe reading and writing of the files the tools are pointed at.
//
// Inputs: a path given on the command line may name a FIFO, a device or a directory; opening
// those for reading can block forever or stream without end, so inputs are checked with stat()
// first and only regular files are read.
//
// Outputs: a regular (or missing) target is replaced atomically through a temporary sibling
// that takes over the old file's permission mode; a FIFO or character device (/dev/null,
// /dev/stdout) is written in place, since renaming over it would replace the device node.
// A symbolic link is written through: the file it names is replaced and the link stays. A
// link to nothing or a link loop is an error (writing would create a file somewhere the user
// did not name, or nowhere).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tico {

// Upper bound for text files read whole into memory (pipeline manifests, config files).
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{16} << 20;

// "a FIFO", "a directory", "a character device", ... for a stat() st_mode value.
std::string describeFileType(unsigned mode);

// Throws tico::Error unless `path` (symlinks followed) is an existing regular file, e.g.
// "pipeline manifest 'p' is a FIFO, not a regular file". `what` names the role of the file.
void requireRegularFile(const std::string &path, const std::string &what);

// Reads a whole regular file, refusing one larger than `max_bytes`.
std::string readRegularFile(const std::string &path, const std::string &what,
                            std::size_t max_bytes = kMaxTextFileBytes);

// Refuses, before any work is done, an output that would destroy something: one that is the
// same file as any of `inputs` (through symlinks, "./" or hard links), one that cannot be
// written (a directory, socket or block device), or an existing regular file without write
// permission for its owner unless `force`. Empty paths in `inputs` are ignored.
// Symbolic links are followed as the writers below follow them (a dangling link or a loop is refused).
void checkOutputTarget(const std::string &output, const std::vector<std::string> &inputs, bool force);

// Refuses an output inside `directory` (at any depth, through links), an input folder whose
// files the run reads (calibration data): "output 'cal/0.npy' is inside the <what> 'cal'".
void checkOutputOutside(const std::string &output, const std::string &directory, const std::string &what);

// Refuses two outputs of one run that name the same file (through "./", links or hard links),
// which would leave only the one written last: `outputs` holds (role, path) pairs such as
// ("-o", "m.circle"), ("--encodings", "m.circle"). Empty paths are ignored.
void checkDistinctOutputs(const std::vector<std::pair<std::string, std::string>> &outputs);

// Writes `path` through `write`, which receives an open file descriptor positioned at 0 and
// must write sequentially (the target may be a pipe). `what` names the kind of file in
// messages: "cannot write <what> '<path>': ...". On failure nothing replaces the target.
void writeFileSafely(const std::string &path, const std::string &what, const std::function<void(int fd)> &write);

// Writes `size` bytes to `fd`, retrying short writes and EINTR; throws tico::Error
// "cannot write <what> '<path>': <reason>".
void writeAll(int fd, const void *data, std::size_t size, const std::string &what, const std::string &path);

// writeFileSafely for text held in memory (reports, JSON side files, textual IR).
void writeTextFile(const std::string &path, const std::string &what, const std::string &text);

// The outputs of one run, written all or none (a Circle file and its encodings or manifest):
// add() writes each into a temporary sibling of its target at once; commit() renames them all
// into place. If an add() throws, or the batch is destroyed before commit(), every target is
// left as it was. A FIFO or character device target cannot be staged and is written in place
// by add().
class OutputBatch {
public:
  OutputBatch();
  ~OutputBatch();
  OutputBatch(const OutputBatch &) = delete;
  OutputBatch &operator=(const OutputBatch &) = delete;

  void add(const std::string &path, const std::string &what, const std::function<void(int fd)> &write);
  void addText(const std::string &path, const std::string &what, const std::string &text);
  void commit();

private:
  struct Staged;
  std::vector<std::unique_ptr<Staged>> staged_;
};

} // namespace tico
