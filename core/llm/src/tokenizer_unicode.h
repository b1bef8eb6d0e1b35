// Unicode data the pipeline needs beyond UTF-8 itself, taken from ICU: normalization forms and the
// character properties behind the library's added-token rules.
#pragma once

#include "tokenizer_text.h"

namespace tico::llm::detail {

enum class NormalForm { NFC, NFD, NFKC, NFKD };

// Normalizes the piece's text. Each normalization segment (text between two characters with a
// normalization boundary before them) maps to the original offset of its first character.
void normalizeUnicode(Piece &piece, NormalForm form);

// The Rust regex crate's \w (Alphabetic, marks, decimal digits, connector punctuation,
// Join_Control), which decides whether a `single_word` added token touches a word.
bool isWordCharacter(char32_t cp);
// General category Nd, Nl or No (Rust's char::is_numeric), which the Digits pre-tokenizer splits.
bool isNumeric(char32_t cp);
// The White_Space property (Rust's char::is_whitespace and regex \s), which `lstrip`/`rstrip`
// added tokens absorb.
bool isWhiteSpace(char32_t cp);

} // namespace tico::llm::detail
