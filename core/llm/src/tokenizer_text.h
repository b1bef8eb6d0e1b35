// The unit of work of the encoding pipeline: a piece of the input text, with enough bookkeeping
// to answer the one question about original offsets that changes token ids.
//
// The reference library tracks, for every byte of normalized text, the span of the original text
// it came from. Only one decision depends on it: the `Metaspace` pre-tokenizer with
// prepend_scheme "first" adds "▁" only to the piece that starts at original offset 0. So a piece
// carries, per byte, the original offset where the byte's source character starts, updated by
// Replace, Prepend and the byte-level mapping exactly as the library updates its alignments (and
// by Unicode normalization per normalization segment), and its own original start (`shift`, the
// library's original_shift), fixed when the piece is cut out of a larger one.
#pragma once

#include "tico/llm/tokenizer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tico::llm::detail {

// A byte range [begin, end).
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// One match-or-gap of a pattern over a text; the list of them covers the text (the library's
// Pattern::find_matches).
struct PatternSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool is_match = false;
};

struct Piece {
  std::string text;
  std::vector<std::uint32_t> origin; // one entry per byte of `text`
  std::uint32_t shift = 0;           // original offset of the piece
  TokenId token = -1;                // >= 0 when the piece is an added token, already final

  // A piece for original text starting at original offset `offset`.
  static Piece fromOriginal(std::string_view text, std::uint32_t offset);
  // Bytes [begin, end) as a new piece (NormalizedString::slice).
  Piece slice(std::size_t begin, std::size_t end) const;
  // Replaces each match by `content` (NormalizedString::replace).
  void replaceMatches(const std::vector<PatternSpan> &matches, std::string_view content);
  // Prepends `prefix` when the piece is not empty (NormalizedString::prepend).
  void prepend(std::string_view prefix);
};

// Turns pattern matches into the pieces a `Split` keeps, following one of the library's
// SplitDelimiterBehavior rules; spans are returned, empty ones included.
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
std::vector<Span> applySplitBehavior(const std::vector<PatternSpan> &matches, SplitBehavior behavior);

} // namespace tico::llm::detail
