// UTF-8 helpers shared by the tokenizer's stages.
//
// Every stage works on UTF-8 std::strings, as the reference library works on Rust Strings; these
// helpers keep the byte-level details (validation, decoding, the exact U+FFFD substitution Rust's
// String::from_utf8_lossy performs) in one place.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tico::llm::detail {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD"; // U+FFFD

// Length of the well-formed UTF-8 sequence starting at p (1-4), or 0 if the bytes there are not
// one (bad lead byte, bad continuation, overlong form, surrogate, > U+10FFFF, truncated).
std::size_t utf8ValidSequenceLength(const unsigned char *p, std::size_t available);

// Byte offset of the first ill-formed sequence, or std::string_view::npos if `text` is valid.
std::size_t findInvalidUtf8(std::string_view text);

// Length of the character whose lead byte is `lead`, for text already known to be valid.
inline std::size_t utf8CharLength(unsigned char lead) {
  if (lead < 0x80)
    return 1;
  if (lead < 0xE0)
    return 2;
  if (lead < 0xF0)
    return 3;
  return 4;
}

// The value of an ASCII hex digit, or -1 for any other character.
inline int hexDigitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// Decodes the character at `p` of valid UTF-8 text.
char32_t decodeUtf8(const char *p, std::size_t &length);

void appendUtf8(std::string &out, char32_t cp);

// Appends `bytes` decoded like Rust's String::from_utf8_lossy: each maximal ill-formed subpart
// becomes one U+FFFD.
void appendUtf8Lossy(std::string &out, std::string_view bytes);

// Streaming form of appendUtf8Lossy: decodes the longest prefix whose decoding cannot change
// when more bytes follow, and returns its length. What remains (at most 3 bytes) is the start of
// a character that may still be completed.
std::size_t appendUtf8LossyPrefix(std::string &out, std::string_view bytes);

} // namespace tico::llm::detail
