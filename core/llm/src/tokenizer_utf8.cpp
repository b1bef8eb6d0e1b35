#include "tokenizer_utf8.h"

namespace tico::llm::detail {
namespace {

// Result of examining the sequence at the start of `bytes`.
struct SequenceScan {
  std::size_t length;   // bytes examined: the whole character, or the ill-formed subpart
  bool valid;           // a complete character
  bool truncated;       // a valid prefix cut by the end of the input
};

SequenceScan scanSequence(const unsigned char *p, std::size_t available) {
  unsigned char lead = p[0];
  if (lead < 0x80)
    return {1, true, false};
  std::size_t need;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 3;
    if (lead == 0xE0)
      second_min = 0xA0; // overlong
    else if (lead == 0xED)
      second_max = 0x9F; // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 4;
    if (lead == 0xF0)
      second_min = 0x90; // overlong
    else if (lead == 0xF4)
      second_max = 0x8F; // > U+10FFFF
  } else {
    return {1, false, false};
  }
  for (std::size_t i = 1; i < need; ++i) {
    if (i >= available)
      return {i, false, true};
    unsigned char lo = i == 1 ? second_min : 0x80;
    unsigned char hi = i == 1 ? second_max : 0xBF;
    if (p[i] < lo || p[i] > hi)
      return {i, false, false};
  }
  return {need, true, false};
}

// Shared loop of the two lossy decoders; stops before a truncated sequence when `keep_tail`.
std::size_t decodeLossy(std::string &out, std::string_view bytes, bool keep_tail) {
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
  std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    std::size_t run = i;
    while (run < n && p[run] < 0x80)
      ++run;
    out.append(bytes.data() + i, run - i);
    i = run;
    if (i >= n)
      break;
    SequenceScan scan = scanSequence(p + i, n - i);
    if (scan.valid) {
      out.append(bytes.data() + i, scan.length);
    } else {
      if (scan.truncated && keep_tail)
        return i;
      out.append(kReplacementCharacter);
    }
    i += scan.length;
  }
  return n;
}

} // namespace

std::size_t utf8ValidSequenceLength(const unsigned char *p, std::size_t available) {
  if (available == 0)
    return 0;
  SequenceScan scan = scanSequence(p, available);
  return scan.valid ? scan.length : 0;
}

std::size_t findInvalidUtf8(std::string_view text) {
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = utf8ValidSequenceLength(p + i, n - i);
    if (length == 0)
      return i;
    i += length;
  }
  return std::string_view::npos;
}

char32_t decodeUtf8(const char *text, std::size_t &length) {
  const auto *p = reinterpret_cast<const unsigned char *>(text);
  unsigned char lead = p[0];
  if (lead < 0x80) {
    length = 1;
    return lead;
  }
  if (lead < 0xE0) {
    length = 2;
    return (char32_t(lead & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (lead < 0xF0) {
    length = 3;
    return (char32_t(lead & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  length = 4;
  return (char32_t(lead & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) | (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

void appendUtf8(std::string &out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

void appendUtf8Lossy(std::string &out, std::string_view bytes) { decodeLossy(out, bytes, false); }

std::size_t appendUtf8LossyPrefix(std::string &out, std::string_view bytes) { return decodeLossy(out, bytes, true); }

} // namespace tico::llm::detail
