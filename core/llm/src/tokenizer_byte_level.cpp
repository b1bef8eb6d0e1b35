#include "tokenizer_byte_level.h"

#include "tokenizer_utf8.h"

#include <array>
#include <string>

namespace tico::llm::detail {
namespace {

struct ByteLevelTables {
  std::array<char32_t, 256> char_of{};
  std::array<std::string, 256> utf8_of;

  ByteLevelTables() {
    // Bytes that are printable in Latin-1 stand for themselves; the rest take U+0100, U+0101, ...
    // in byte order (the table of GPT-2's encoder.py).
    auto printable = [](int b) {
      return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      char_of[static_cast<std::size_t>(b)] = printable(b) ? static_cast<char32_t>(b) : next++;
      appendUtf8(utf8_of[static_cast<std::size_t>(b)], char_of[static_cast<std::size_t>(b)]);
    }
  }
};

const ByteLevelTables &tables() {
  static const ByteLevelTables instance;
  return instance;
}

} // namespace

std::string_view byteLevelChar(std::uint8_t byte) { return tables().utf8_of[byte]; }

int byteLevelByte(char32_t cp) {
  if (cp < 0x100) {
    bool printable = (cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF);
    return printable ? static_cast<int>(cp) : -1;
  }
  // U+0100.. stand for the non-printable bytes in ascending order.
  static const std::array<int, 68> non_printable = [] {
    std::array<int, 68> bytes{};
    std::size_t n = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      if (!printable)
        bytes[n++] = b;
    }
    return bytes;
  }();
  std::size_t index = cp - 0x100;
  return index < non_printable.size() ? non_printable[index] : -1;
}

std::string byteLevelBytes(std::string_view token) {
  std::string mapped;
  for (std::size_t i = 0; i < token.size();) {
    std::size_t length = 0;
    const int byte = byteLevelByte(decodeUtf8(token.data() + i, length));
    if (byte < 0)
      return std::string(token);
    mapped.push_back(static_cast<char>(byte));
    i += length;
  }
  return mapped;
}

} // namespace tico::llm::detail
