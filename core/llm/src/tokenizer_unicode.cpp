#include "tokenizer_unicode.h"

#include "tico/support/error.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace tico::llm::detail {
namespace {

const icu::Normalizer2 &normalizerFor(NormalForm form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2 *normalizer = nullptr;
  switch (form) {
  case NormalForm::NFC:
    normalizer = icu::Normalizer2::getNFCInstance(status);
    break;
  case NormalForm::NFD:
    normalizer = icu::Normalizer2::getNFDInstance(status);
    break;
  case NormalForm::NFKC:
    normalizer = icu::Normalizer2::getNFKCInstance(status);
    break;
  case NormalForm::NFKD:
    normalizer = icu::Normalizer2::getNFKDInstance(status);
    break;
  }
  if (U_FAILURE(status) || !normalizer)
    throw Error(std::string("tokenizer: ICU normalization data is unavailable: ") + u_errorName(status));
  return *normalizer;
}

} // namespace

void normalizeUnicode(Piece &piece, NormalForm form) {
  const icu::Normalizer2 &normalizer = normalizerFor(form);
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString utf16 =
      icu::UnicodeString::fromUTF8(icu::StringPiece(piece.text.data(), static_cast<int32_t>(piece.text.size())));
  // Most text is already normalized: keep the prefix that certainly is, untouched.
  int32_t normalized_prefix = normalizer.spanQuickCheckYes(utf16, status);
  if (U_FAILURE(status))
    throw Error(std::string("tokenizer: Unicode normalization failed: ") + u_errorName(status));
  if (normalized_prefix == utf16.length())
    return;

  std::size_t prefix_bytes = 0;
  for (int32_t i = 0; i < normalized_prefix;) {
    UChar32 cp = utf16.char32At(i);
    prefix_bytes += static_cast<std::size_t>(U8_LENGTH(cp));
    i += U16_LENGTH(cp);
  }
  std::string text(piece.text, 0, prefix_bytes);
  std::vector<std::uint32_t> origin(piece.origin.begin(),
                                    piece.origin.begin() + static_cast<std::ptrdiff_t>(prefix_bytes));

  // The rest, one normalization segment at a time (segments normalize independently).
  int32_t i = normalized_prefix;
  std::size_t byte = prefix_bytes;
  std::string utf8;
  while (i < utf16.length()) {
    int32_t segment_begin = i;
    std::size_t segment_byte = byte;
    do {
      UChar32 cp = utf16.char32At(i);
      byte += static_cast<std::size_t>(U8_LENGTH(cp));
      i += U16_LENGTH(cp);
    } while (i < utf16.length() && !normalizer.hasBoundaryBefore(utf16.char32At(i)));
    icu::UnicodeString segment(utf16, segment_begin, i - segment_begin);
    icu::UnicodeString normalized = normalizer.normalize(segment, status);
    if (U_FAILURE(status))
      throw Error(std::string("tokenizer: Unicode normalization failed: ") + u_errorName(status));
    utf8.clear();
    normalized.toUTF8String(utf8);
    text += utf8;
    origin.insert(origin.end(), utf8.size(), piece.origin[segment_byte]);
  }
  piece.text = std::move(text);
  piece.origin = std::move(origin);
}

bool isWordCharacter(char32_t cp) {
  auto c = static_cast<UChar32>(cp);
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC) || u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL))
    return true;
  switch (u_charType(c)) {
  case U_NON_SPACING_MARK:
  case U_ENCLOSING_MARK:
  case U_COMBINING_SPACING_MARK:
  case U_DECIMAL_DIGIT_NUMBER:
  case U_CONNECTOR_PUNCTUATION:
    return true;
  default:
    return false;
  }
}

bool isNumeric(char32_t cp) {
  switch (u_charType(static_cast<UChar32>(cp))) {
  case U_DECIMAL_DIGIT_NUMBER:
  case U_LETTER_NUMBER:
  case U_OTHER_NUMBER:
    return true;
  default:
    return false;
  }
}

bool isWhiteSpace(char32_t cp) { return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_WHITE_SPACE); }

} // namespace tico::llm::detail
