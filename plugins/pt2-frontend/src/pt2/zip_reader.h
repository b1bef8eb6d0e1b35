// A minimal reader of stored (uncompressed) ZIP archives over a memory-mapped file (or an
// archive image in memory). Deflated entries are accepted only when asked for (NumPy's .npz
// files from savez_compressed); inflating them is the caller's business.
//
// torch.export archives are written by PyTorchStreamWriter: every entry stored, ZIP64 form,
// data aligned to 64 bytes. Entries are returned as {offset, size} views into the mapping, so
// tensor payloads are never copied. Every field read from the file is bounds-checked; any
// inconsistency is a tico::Error naming the file and the problem.
#pragma once

#include "pt2/archive_image.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tico::pt2 {

struct ZipEntry {
  std::string name;    // full name as stored (root folder included)
  uint64_t offset = 0; // of the entry's data in the file
  uint64_t size = 0;   // bytes in the file (stored entries: compressed size == uncompressed size)
  uint16_t method = 0; // 0 stored, 8 deflated (only with ZipCompression::StoredOrDeflated)
  uint64_t uncompressed_size = 0;
  uint32_t crc32 = 0;  // of the uncompressed bytes, as the central directory records it
};

enum class ZipCompression { StoredOnly, StoredOrDeflated };

class ZipReader {
public:
  // Reads the central directory of `image`. Throws tico::Error on anything malformed or
  // unsupported (compressed or encrypted entries, unsafe names, duplicates, entries whose
  // bytes overlap, ...).
  explicit ZipReader(ArchiveImage image, ZipCompression compression = ZipCompression::StoredOnly);
  explicit ZipReader(std::shared_ptr<const MappedFile> file,
                     ZipCompression compression = ZipCompression::StoredOnly)
      : ZipReader(ArchiveImage::mapped(std::move(file)), compression) {}

  const ArchiveImage &image() const { return image_; }
  // File entries in central-directory order (directory entries are skipped).
  const std::vector<ZipEntry> &entries() const { return entries_; }

  // The bytes of an entry as they sit in the file (compressed for a deflated one), pointing
  // into the mapping.
  std::string_view bytes(const ZipEntry &entry) const;
  // The bytes of a stored entry after checking them against the CRC-32 the central directory
  // records; throws tico::Error naming the entry when they differ. For the small entries read
  // as text or pickles (markers, the program JSON, payload configs, example inputs): a damaged
  // byte there would change the program silently. Weights are mapped and not read twice.
  std::string_view checkedBytes(const ZipEntry &entry) const;

  // Upper bound on the entry count; a central directory claiming more is rejected before
  // anything is allocated for it.
  static constexpr uint64_t kMaxEntries = 1'000'000;

private:
  struct Directory {
    uint64_t offset = 0;
    uint64_t size = 0;
    uint64_t count = 0;
  };
  // The bytes an entry occupies: its local header through the end of its data.
  struct Span {
    uint64_t begin = 0;
    uint64_t end = 0;
    std::string name;
  };
  Directory findDirectory() const;
  void readDirectory(const Directory &dir);
  void checkDisjoint(std::vector<Span> &spans) const;
  uint64_t dataOffset(const std::string &name, uint64_t local_header, uint16_t method) const;
  [[noreturn]] void fail(const std::string &problem) const;

  ArchiveImage image_;
  ZipCompression compression_;
  std::vector<ZipEntry> entries_;
};

} // namespace tico::pt2
