// Zip archives written by tests and fuzz harnesses: the layout torch.save, torch.export.save and
// numpy.savez write (local header and data per member, then the central directory and the end
// record), with each member's CRC-32 recorded as the readers now check it. Header-only and
// dependency-free, for both the unit tests and the clang-built fuzz targets.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tico::testing_zip {

// CRC-32 as zip records it (IEEE 802.3, reflected).
inline uint32_t crc32Of(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (const char b : bytes)
    c = table[(c ^ static_cast<unsigned char>(b)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

struct ZipMember {
  std::string name;
  std::string data;          // the member's bytes (what the CRC and the uncompressed size describe)
  std::string stored;        // the bytes in the file: `data` itself (method 0) or its deflate stream
  uint16_t method = 0;       // 0 stored, 8 deflated
};

inline void putLittleEndian(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out += static_cast<char>((value >> (8 * i)) & 0xff);
}

inline std::string zipArchive(const std::vector<ZipMember> &members) {
  auto put = putLittleEndian;
  std::string out, central;
  for (const ZipMember &m : members) {
    const std::string &stored = m.method == 0 ? m.data : m.stored;
    const uint32_t crc = crc32Of(m.data);
    const uint64_t local = out.size();
    put(out, 0x04034b50, 4), put(out, 20, 2), put(out, 0, 2), put(out, m.method, 2), put(out, 0, 4);
    put(out, crc, 4), put(out, stored.size(), 4), put(out, m.data.size(), 4), put(out, m.name.size(), 2);
    put(out, 0, 2);
    out += m.name + stored;
    put(central, 0x02014b50, 4), put(central, 20, 2), put(central, 20, 2), put(central, 0, 2);
    put(central, m.method, 2), put(central, 0, 4), put(central, crc, 4), put(central, stored.size(), 4);
    put(central, m.data.size(), 4), put(central, m.name.size(), 2), put(central, 0, 2), put(central, 0, 2);
    put(central, 0, 2), put(central, 0, 2), put(central, 0, 4), put(central, local, 4);
    central += m.name;
  }
  const uint64_t dir_at = out.size();
  out += central;
  put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2), put(out, members.size(), 2);
  put(out, members.size(), 2), put(out, central.size(), 4), put(out, dir_at, 4), put(out, 0, 2);
  return out;
}

// A zip of stored (uncompressed) members, as torch.save and torch.export.save write them.
inline std::string storedZip(const std::vector<std::pair<std::string, std::string_view>> &members) {
  std::vector<ZipMember> list;
  for (const auto &[name, data] : members)
    list.push_back({name, std::string(data), {}, 0});
  return zipArchive(list);
}

} // namespace tico::testing_zip
