#include "pt2/zip_reader.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_set>

namespace tico::pt2 {
namespace {

// Record signatures and fixed sizes (APPNOTE.TXT 4.3).
constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kZip64EndMinSize = 56;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kMaxCommentSize = 0xFFFF;
constexpr uint16_t kZip64ExtraTag = 0x0001;
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagStrongEncryption = 0x0040;

// Little-endian field readers. Callers check bounds first; these only assemble bytes.
uint16_t u16(const std::byte *p) {
  return static_cast<uint16_t>(std::to_integer<uint16_t>(p[0]) | std::to_integer<uint16_t>(p[1]) << 8);
}
uint32_t u32(const std::byte *p) { return u16(p) | static_cast<uint32_t>(u16(p + 2)) << 16; }
uint64_t u64(const std::byte *p) { return u32(p) | static_cast<uint64_t>(u32(p + 4)) << 32; }

// Names can hold any byte; quote them so control characters stay visible in messages.
std::string quoted(std::string_view full_name) {
  const std::string name = clipped(full_name);
  std::string out = "'";
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static const char *hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The central directory record fields we need (ZIP64 values already substituted).
struct CentralRecord {
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_header = 0;
  uint32_t disk = 0;
};

} // namespace

ZipReader::ZipReader(ArchiveImage image, ZipCompression compression)
    : image_(std::move(image)), compression_(compression) {
  Directory dir = findDirectory();
  readDirectory(dir);
}

void ZipReader::fail(const std::string &problem) const { throw Error(image_.name() + ": " + problem); }

std::string_view ZipReader::bytes(const ZipEntry &entry) const {
  return {reinterpret_cast<const char *>(image_.data()) + entry.offset, static_cast<std::size_t>(entry.size)};
}

namespace {

// CRC-32 (IEEE 802.3, reflected, zip's), one table lookup per byte: the entries checked are
// small, and the reader keeps no dependency on zlib.
constexpr std::array<uint32_t, 256> kCrcTable = [] {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}();

uint32_t crc32Of(std::string_view bytes) {
  uint32_t c = 0xffffffffu;
  for (const char b : bytes)
    c = kCrcTable[(c ^ static_cast<unsigned char>(b)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::string hex32(uint32_t v) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

} // namespace

std::string_view ZipReader::checkedBytes(const ZipEntry &entry) const {
  const std::string_view data = bytes(entry);
  if (entry.method == 0) {
    const uint32_t crc = crc32Of(data);
    if (crc != entry.crc32)
      fail("entry '" + entry.name + "' is damaged: its CRC-32 is " + hex32(crc) + ", the archive records " +
           hex32(entry.crc32));
  }
  return data;
}

ZipReader::Directory ZipReader::findDirectory() const {
  const uint64_t size = image_.size();
  const std::byte *data = image_.data();
  const bool looks_like_zip = size >= 4 && u32(data) == kLocalHeaderSig;
  if (size == 0)
    fail("empty file (0 bytes); expected a .pt2 zip archive");

  // The end record sits at the very end, followed only by its comment (at most 64 KiB).
  // Scan backwards so the last record wins, as in every zip reader.
  // The record must end exactly at the end of the file (its comment included). A record
  // followed by other bytes is not this archive's: a truncated .pt2 still holds the end records
  // of the zip files stored inside it (torch.save archives), whose offsets mean nothing here.
  std::optional<uint64_t> end_at, embedded_end_at;
  if (size >= kEndSize) {
    const uint64_t lowest = size - kEndSize > kMaxCommentSize ? size - kEndSize - kMaxCommentSize : 0;
    for (uint64_t pos = size - kEndSize + 1; pos-- > lowest;) {
      if (u32(data + pos) != kEndSig)
        continue;
      const uint64_t record_end = pos + kEndSize + u16(data + pos + 20);
      if (record_end == size) {
        end_at = pos;
        break;
      }
      if (!embedded_end_at && record_end < size)
        embedded_end_at = pos;
    }
  }
  if (!end_at) {
    const std::string sized = " (" + std::to_string(size) + " bytes)";
    if (looks_like_zip && embedded_end_at)
      fail("truncated file" + sized + ": it starts like a zip archive but does not end with an "
           "end-of-central-directory record (the last one, at offset " + std::to_string(*embedded_end_at) +
           ", is followed by " + std::to_string(size - *embedded_end_at - kEndSize) +
           " bytes that are not its comment: it belongs to a zip stored inside an entry); the archive's end "
           "records, which give its size, are missing");
    if (looks_like_zip)
      fail("truncated file" + sized + ": it starts like a zip archive but has no end-of-central-directory record "
           "(the archive's end records, which give its size, are missing)");
    fail("not a zip archive (no end-of-central-directory record)");
  }
  const std::byte *end = data + *end_at;
  uint32_t disk = u16(end + 4), dir_disk = u16(end + 6);
  uint64_t count_on_disk = u16(end + 8), count = u16(end + 10);
  Directory dir{u32(end + 16), u32(end + 12), count};
  uint64_t directory_limit = *end_at; // the directory must end before the end records

  const bool has_locator = *end_at >= kZip64LocatorSize && u32(end - kZip64LocatorSize) == kZip64LocatorSig;
  if (has_locator) {
    const std::byte *loc = end - kZip64LocatorSize;
    const uint64_t locator_at = *end_at - kZip64LocatorSize;
    const uint64_t record_at = u64(loc + 8);
    if (u32(loc + 4) != 0 || u32(loc + 16) > 1)
      fail("multi-volume zip archives are not supported");
    if (record_at > locator_at || locator_at - record_at < kZip64EndMinSize)
      fail("ZIP64 end-of-central-directory record at offset " + std::to_string(record_at) +
           " lies outside the file");
    const std::byte *rec = data + record_at;
    if (u32(rec) != kZip64EndSig)
      fail("bad ZIP64 end-of-central-directory record signature at offset " + std::to_string(record_at));
    disk = u32(rec + 16);
    dir_disk = u32(rec + 20);
    count_on_disk = u64(rec + 24);
    count = u64(rec + 32);
    dir.size = u64(rec + 40);
    dir.offset = u64(rec + 48);
    dir.count = count;
    directory_limit = record_at;
  } else if (count == 0xFFFF || dir.size == 0xFFFFFFFF || dir.offset == 0xFFFFFFFF) {
    fail("the end-of-central-directory record refers to a ZIP64 record that is missing");
  }
  if (disk != 0 || dir_disk != 0 || count_on_disk != count)
    fail("multi-volume zip archives are not supported");
  if (count > kMaxEntries)
    fail("the central directory claims " + std::to_string(count) + " entries (the limit is " +
         std::to_string(kMaxEntries) + ")");
  if (dir.offset > size || dir.size > size - dir.offset)
    fail("central directory (offset " + std::to_string(dir.offset) + ", " + std::to_string(dir.size) +
         " bytes) lies outside the file (" + std::to_string(size) + " bytes)");
  if (dir.offset + dir.size > directory_limit)
    fail("central directory (offset " + std::to_string(dir.offset) + ", " + std::to_string(dir.size) +
         " bytes) overlaps the end-of-central-directory record");
  if (dir.count > dir.size / kCentralHeaderSize)
    fail("central directory of " + std::to_string(dir.size) + " bytes cannot hold the " +
         std::to_string(dir.count) + " entries it claims");
  return dir;
}

namespace {

// Rejects names that could escape a directory if extracted, or that no writer of .pt2 files
// produces. Returns the problem, or "" when the name is fine.
std::string nameProblem(std::string_view name) {
  if (name.empty())
    return "an entry has an empty name";
  if (name.find('\0') != std::string_view::npos)
    return "entry " + quoted(name) + " has a NUL byte in its name";
  if (name.find('\\') != std::string_view::npos)
    return "entry " + quoted(name) + " has a backslash in its name";
  if (name.front() == '/' || (name.size() >= 2 && name[1] == ':'))
    return "entry " + quoted(name) + " has an absolute path";
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t slash = std::min(name.find('/', start), name.size());
    if (name.substr(start, slash - start) == "..")
      return "entry " + quoted(name) + " has a '..' path component";
    start = slash + 1;
  }
  return {};
}

} // namespace

void ZipReader::readDirectory(const Directory &dir) {
  const std::byte *data = image_.data();
  const uint64_t file_size = image_.size();
  const uint64_t dir_end = dir.offset + dir.size;
  std::unordered_set<std::string> seen;
  entries_.reserve(static_cast<std::size_t>(dir.count));
  std::vector<Span> spans;
  spans.reserve(static_cast<std::size_t>(dir.count));

  uint64_t pos = dir.offset;
  for (uint64_t i = 0; i < dir.count; ++i) {
    auto where = [&] { return "central directory entry " + std::to_string(i) + " (offset " + std::to_string(pos) + ")"; };
    if (dir_end - pos < kCentralHeaderSize)
      fail(where() + " is truncated");
    const std::byte *h = data + pos;
    if (u32(h) != kCentralHeaderSig)
      fail(where() + " has a bad signature");
    const uint64_t name_len = u16(h + 28), extra_len = u16(h + 30), comment_len = u16(h + 32);
    if (dir_end - pos - kCentralHeaderSize < name_len + extra_len + comment_len)
      fail(where() + " is truncated");
    std::string name(reinterpret_cast<const char *>(h + kCentralHeaderSize), name_len);
    if (std::string problem = nameProblem(name); !problem.empty())
      fail(problem);

    CentralRecord rec;
    rec.flags = u16(h + 8);
    rec.method = u16(h + 10);
    rec.crc32 = u32(h + 16);
    rec.compressed_size = u32(h + 20);
    rec.size = u32(h + 24);
    rec.disk = u16(h + 34);
    rec.local_header = u32(h + 42);

    // ZIP64 extended information: only the fields saturated in the fixed header are present,
    // in the order size, compressed size, local header offset, disk.
    const bool need_size = rec.size == 0xFFFFFFFF, need_csize = rec.compressed_size == 0xFFFFFFFF;
    const bool need_offset = rec.local_header == 0xFFFFFFFF, need_disk = rec.disk == 0xFFFF;
    bool found_zip64 = false;
    const std::byte *extra = h + kCentralHeaderSize + name_len;
    for (uint64_t e = 0; e + 4 <= extra_len;) {
      const uint16_t tag = u16(extra + e);
      const uint64_t len = u16(extra + e + 2);
      if (len > extra_len - e - 4)
        fail("entry " + quoted(name) + " has a malformed extra field");
      if (tag == kZip64ExtraTag) {
        const std::byte *f = extra + e + 4;
        const uint64_t needed = 8 * (need_size + need_csize + need_offset) + 4 * need_disk;
        if (len < needed)
          fail("entry " + quoted(name) + " has a malformed ZIP64 extra field");
        if (need_size)
          rec.size = u64(f), f += 8;
        if (need_csize)
          rec.compressed_size = u64(f), f += 8;
        if (need_offset)
          rec.local_header = u64(f), f += 8;
        if (need_disk)
          rec.disk = u32(f);
        found_zip64 = true;
      }
      e += 4 + len;
    }
    if ((need_size || need_csize || need_offset || need_disk) && !found_zip64)
      fail("entry " + quoted(name) + " lacks the ZIP64 extra field its sizes require");

    if (rec.flags & (kFlagEncrypted | kFlagStrongEncryption))
      fail("entry " + quoted(name) + " is encrypted; .pt2 archives are not encrypted");
    const bool deflated = rec.method == 8 && compression_ == ZipCompression::StoredOrDeflated;
    if (rec.method != 0 && !deflated)
      fail("entry " + quoted(name) + " is compressed (method " + std::to_string(rec.method) + "); " +
           (compression_ == ZipCompression::StoredOnly ? ".pt2 archives store entries uncompressed"
                                                       : "only stored and deflated entries are supported"));
    if (!deflated && rec.compressed_size != rec.size)
      fail("entry " + quoted(name) + " is stored but its compressed size (" +
           std::to_string(rec.compressed_size) + ") differs from its size (" + std::to_string(rec.size) + ")");
    if (rec.disk != 0)
      fail("multi-volume zip archives are not supported");
    if (!seen.insert(name).second)
      fail("duplicate entry " + quoted(name));

    const uint64_t offset = dataOffset(name, rec.local_header, rec.method);
    const uint64_t stored = rec.compressed_size;
    if (stored > file_size || offset > file_size - stored)
      fail("data of entry " + quoted(name) + " (offset " + std::to_string(offset) + ", " +
           std::to_string(stored) + " bytes) lies outside the file (" + std::to_string(file_size) + " bytes)");
    if (rec.local_header < dir_end && dir.offset < offset + stored)
      fail("entry " + quoted(name) + " (offset " + std::to_string(rec.local_header) +
           ") overlaps the central directory");

    spans.push_back({rec.local_header, offset + stored, name});
    if (name.back() != '/') // directory entries carry no data
      entries_.push_back({std::move(name), offset, stored, rec.method, rec.size, rec.crc32});
    pos += kCentralHeaderSize + name_len + extra_len + comment_len;
  }
  checkDisjoint(spans);
}

void ZipReader::checkDisjoint(std::vector<Span> &spans) const {
  // Entries are views into one mapping; two whose bytes overlap would alias each other's data
  // (a crafted archive can make one tensor's payload another entry's JSON). Each entry's span
  // runs from its local header to the end of its data.
  std::sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < spans.size(); ++i) {
    const Span &first = spans[i - 1], &second = spans[i];
    if (second.begin < first.end)
      fail("entries " + quoted(first.name) + " (bytes " + std::to_string(first.begin) + " to " +
           std::to_string(first.end) + ") and " + quoted(second.name) + " (bytes " + std::to_string(second.begin) +
           " to " + std::to_string(second.end) + ") overlap");
  }
}

uint64_t ZipReader::dataOffset(const std::string &name, uint64_t local_header, uint16_t method) const {
  const uint64_t size = image_.size();
  if (local_header > size || size - local_header < kLocalHeaderSize)
    fail("local header of entry " + quoted(name) + " (offset " + std::to_string(local_header) +
         ") lies outside the file (" + std::to_string(size) + " bytes)");
  const std::byte *h = image_.data() + local_header;
  if (u32(h) != kLocalHeaderSig)
    fail("entry " + quoted(name) + " has a bad local header signature at offset " + std::to_string(local_header));
  const uint64_t name_len = u16(h + 26), extra_len = u16(h + 28);
  if (size - local_header - kLocalHeaderSize < name_len + extra_len)
    fail("local header of entry " + quoted(name) + " (offset " + std::to_string(local_header) +
         ") runs past the end of the file");
  if (name_len != name.size() || std::memcmp(h + kLocalHeaderSize, name.data(), name_len) != 0)
    fail("local header of entry " + quoted(name) + " (offset " + std::to_string(local_header) +
         ") names a different entry");
  if (u16(h + 8) != method)
    fail("entry " + quoted(name) + " is compressed (method " + std::to_string(u16(h + 8)) +
         ") in its local header but method " + std::to_string(method) + " in the central directory");
  return local_header + kLocalHeaderSize + name_len + extra_len;
}

} // namespace tico::pt2
