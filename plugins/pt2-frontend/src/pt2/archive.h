// The torch.export archive layer: a ZipReader plus the .pt2 conventions (one root folder,
// archive_format / archive_version / byteorder markers, models/<name>.json).
#pragma once

#include "pt2/zip_reader.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tico::pt2 {

class Archive {
public:
  // Maps `path`, reads the zip directory and checks that it is a little-endian .pt2 archive
  // of the version PyTorch 2.13 writes. Throws tico::Error naming the file and the problem.
  explicit Archive(const std::string &path);
  // The same checks on an archive image already in memory (or mapped by the caller).
  explicit Archive(ArchiveImage image);

  // The file's path, or the name that stands for an image in memory.
  const std::string &path() const { return zip_->image().name(); }
  const ArchiveImage &image() const { return zip_->image(); }
  // The folder every entry sits in ("model" for model.pt2), without the slash.
  const std::string &root() const { return root_; }

  // Entry by name relative to the root folder ("models/model.json"); null when absent.
  const ZipEntry *find(std::string_view name) const;
  // Bytes of an entry relative to the root; throws tico::Error when absent.
  std::string_view read(std::string_view name) const;
  std::string_view bytes(const ZipEntry &entry) const { return zip_->bytes(entry); }
  // The bytes of a stored entry checked against its recorded CRC-32 (ZipReader::checkedBytes);
  // read() checks the same way.
  std::string_view checkedBytes(const ZipEntry &entry) const { return zip_->checkedBytes(entry); }
  // Every entry name relative to the root, sorted.
  std::vector<std::string> names() const;

  // The model this archive is read for ("model" unless the archive holds only another one).
  const std::string &modelName() const { return model_; }

  [[noreturn]] void fail(const std::string &problem) const;

private:
  void indexEntries();
  void checkMarkers();
  void chooseModel();

  std::unique_ptr<ZipReader> zip_;
  std::string root_;
  std::map<std::string, const ZipEntry *, std::less<>> by_name_;
  std::string model_;
};

// True when `path` looks like a .pt2 archive: it starts with a zip local header and either
// its name ends in ".pt2" or its directory holds an archive_format entry. Never throws.
bool looksLikePt2(const std::string &path);

} // namespace tico::pt2
