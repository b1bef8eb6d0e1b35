#include "npz_archive.h"

#include <tico/io/npy.h>
#include <tico/support/error.h>

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <cstdio>
#include <filesystem>
#include <span>

namespace tico::calib {
namespace {

pt2::ZipReader openZip(const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error("cannot open the .npz file '" + path + "': " +
                (std::filesystem::exists(path, ec) ? "it is not a regular file" : "it does not exist"));
  if (std::filesystem::file_size(path, ec) == 0)
    throw Error("'" + path + "' is empty (0 bytes); expected a .npz file (a zip archive of .npy arrays)");
  return pt2::ZipReader(MappedFile::open(path), pt2::ZipCompression::StoredOrDeflated);
}

// Deflate cannot expand data by more than about 1032:1; a member claiming more is damaged (or
// hostile), and allocating what it claims would be the damage.
constexpr uint64_t kMaxDeflateRatio = 1100;

// How much of a member is inflated first, to read its .npy header: NumPy's headers are a few
// hundred bytes (version 1.0 allows 64 KiB).
constexpr std::size_t kHeaderWindow = 65536 + 12;

// A member's inflated bytes in memory allocated without being touched: a member that fails half
// way costs only the pages written so far.
struct Inflated {
  std::shared_ptr<std::byte[]> bytes;
  std::size_t size = 0;
};

// Inflates a deflated member whose image the archive says is `size` bytes. The first bytes are
// inflated alone: the .npy header they hold must describe exactly `size` bytes before the rest is
// allocated, so a forged size claim costs nothing.
Inflated inflateMember(std::string_view in, uint64_t size, const std::string &label, const std::string &where) {
  if (size > in.size() * kMaxDeflateRatio + 1024)
    throw Error(label + " claims " + std::to_string(size) + " bytes inflated from " + std::to_string(in.size()) +
                ", more than deflate can produce; the file is damaged");
  if (in.size() > UINT32_MAX || size > UINT32_MAX)
    throw Error(label + " is larger than 4 GiB; deflated .npz members that large are not supported");
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) // raw deflate: zip members carry no zlib header
    throw Error("cannot inflate " + label + ": zlib failed to start");
  struct End {
    z_stream &z;
    ~End() { inflateEnd(&z); }
  } end{z};
  auto damaged = [&](int rc) {
    const std::string why = z.msg ? z.msg : "";
    return Error(label + " is damaged: its deflate data " +
                 (rc == Z_DATA_ERROR ? "is corrupt (" + why + ")"
                  : rc == Z_BUF_ERROR || rc == Z_OK || rc == Z_STREAM_END
                      ? "ends early or holds more than the " + std::to_string(size) + " bytes the archive declares"
                      : "does not inflate (zlib code " + std::to_string(rc) + ")"));
  };
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());

  std::byte header[kHeaderWindow];
  const auto window = static_cast<uInt>(std::min<uint64_t>(size, kHeaderWindow));
  z.next_out = reinterpret_cast<Bytef *>(header);
  z.avail_out = window;
  int rc = inflate(&z, Z_SYNC_FLUSH);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
    throw damaged(rc);
  const std::size_t head = z.total_out;
  const std::size_t described = npyImageSize({header, head}, where);
  if (described != size)
    throw Error(label + " is damaged: its .npy header describes " + std::to_string(described) +
                " bytes, the archive declares " + std::to_string(size));

  // One spare byte: a stream holding more than the archive declares fills it instead of stopping.
  Inflated out{std::make_shared_for_overwrite<std::byte[]>(static_cast<std::size_t>(size) + 1),
               static_cast<std::size_t>(size)};
  std::memcpy(out.bytes.get(), header, head);
  if (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef *>(out.bytes.get() + head);
    z.avail_out = static_cast<uInt>(size + 1 - head);
    rc = inflate(&z, Z_FINISH);
  }
  if (rc != Z_STREAM_END || z.total_out != size)
    throw damaged(rc);
  return out;
}

std::string hex32(uint32_t v) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

} // namespace

NpzArchive::NpzArchive(const std::string &path) : path_(path), zip_(openZip(path)) {
  for (const pt2::ZipEntry &e : zip_.entries()) {
    if (e.name.size() <= 4 || e.name.substr(e.name.size() - 4) != ".npy")
      throw Error("'" + path + "' holds member '" + e.name + "', which is not a .npy array; a .npz file holds "
                  "only .npy members (numpy.savez)");
    names_.push_back(e.name.substr(0, e.name.size() - 4));
  }
}

std::string NpzArchive::label(const std::string &name) const { return "'" + path_ + ":" + name + ".npy'"; }

// numpy's writer records each member's CRC-32 (zipfile does); a mismatch is damage that would
// otherwise become silently wrong calibration data (a flipped bit gave a scale of 6.7e35).
static void checkCrc(std::span<const std::byte> bytes, uint32_t expected, const std::string &label) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::size_t at = 0; at < bytes.size();) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, std::size_t{1} << 30));
    crc = ::crc32(crc, reinterpret_cast<const Bytef *>(bytes.data() + at), n);
    at += n;
  }
  if (static_cast<uint32_t>(crc) != expected)
    throw Error(label + " is damaged: its CRC-32 is " + hex32(static_cast<uint32_t>(crc)) + ", the archive records " +
                hex32(expected));
}

TensorPtr NpzArchive::read(const std::string &name) const {
  for (const pt2::ZipEntry &e : zip_.entries()) {
    if (e.name != name + ".npy")
      continue;
    const std::string_view bytes = zip_.bytes(e);
    const std::string where = path_ + ":" + e.name; // parseNpy quotes it
    if (e.method == 0) {
      std::span<const std::byte> stored{reinterpret_cast<const std::byte *>(bytes.data()), bytes.size()};
      checkCrc(stored, e.crc32, label(name));
      return parseNpy(stored, where);
    }
    Inflated inflated = inflateMember(bytes, e.uncompressed_size, label(name), where);
    const std::span<const std::byte> image{inflated.bytes.get(), inflated.size};
    checkCrc(image, e.crc32, label(name));
    return adoptNpy(image, inflated.bytes, where); // no second copy of the elements
  }
  throw Error("'" + path_ + "' has no member '" + name + ".npy'");
}

} // namespace tico::calib
