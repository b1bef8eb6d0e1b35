#include "tokenizer_text.h"

#include <algorithm>

namespace tico::llm::detail {

Piece Piece::fromOriginal(std::string_view text, std::uint32_t offset) {
  Piece piece;
  piece.text.assign(text);
  piece.origin.resize(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    piece.origin[i] = offset + static_cast<std::uint32_t>(i);
  piece.shift = offset;
  return piece;
}

Piece Piece::slice(std::size_t begin, std::size_t end) const {
  Piece piece;
  piece.text.assign(text, begin, end - begin);
  piece.origin.assign(origin.begin() + static_cast<std::ptrdiff_t>(begin),
                      origin.begin() + static_cast<std::ptrdiff_t>(end));
  // The library converts the normalized range to an original one through the alignment of its
  // first byte; an empty slice keeps the normalized offset (such pieces are dropped anyway).
  piece.shift = begin < end ? origin[begin] : shift + static_cast<std::uint32_t>(begin);
  return piece;
}

void Piece::replaceMatches(const std::vector<PatternSpan> &matches, std::string_view content) {
  bool any = false;
  for (const PatternSpan &m : matches)
    any = any || m.is_match;
  if (!any)
    return;
  std::string new_text;
  std::vector<std::uint32_t> new_origin;
  new_text.reserve(text.size());
  new_origin.reserve(origin.size());
  std::size_t last = 0;
  for (const PatternSpan &m : matches) {
    if (!m.is_match)
      continue;
    new_text.append(text, last, m.begin - last);
    new_origin.insert(new_origin.end(), origin.begin() + static_cast<std::ptrdiff_t>(last),
                      origin.begin() + static_cast<std::ptrdiff_t>(m.begin));
    // Inserted characters share the alignment of the byte before the insertion point, i.e. of
    // the last replaced character; at offset 0 the library uses (0, 0), the piece's own start.
    std::uint32_t where = m.end > 0 ? origin[m.end - 1] : shift;
    new_text.append(content);
    new_origin.insert(new_origin.end(), content.size(), where);
    last = m.end;
  }
  new_text.append(text, last, std::string::npos);
  new_origin.insert(new_origin.end(), origin.begin() + static_cast<std::ptrdiff_t>(last), origin.end());
  text = std::move(new_text);
  origin = std::move(new_origin);
}

void Piece::prepend(std::string_view prefix) {
  if (text.empty() || prefix.empty())
    return;
  // The prefix takes the place of the first character, which is re-inserted after it: all of
  // them keep the first character's alignment.
  std::uint32_t where = origin[0];
  text.insert(0, prefix);
  origin.insert(origin.begin(), prefix.size(), where);
}

std::vector<Span> applySplitBehavior(const std::vector<PatternSpan> &matches, SplitBehavior behavior) {
  std::vector<Span> spans;
  spans.reserve(matches.size());
  switch (behavior) {
  case SplitBehavior::Isolated:
    for (const PatternSpan &m : matches)
      spans.push_back({m.begin, m.end});
    break;
  case SplitBehavior::Removed:
    for (const PatternSpan &m : matches)
      if (!m.is_match)
        spans.push_back({m.begin, m.end});
    break;
  case SplitBehavior::Contiguous: {
    bool previous_match = false;
    for (const PatternSpan &m : matches) {
      if (m.is_match == previous_match && !spans.empty())
        spans.back().end = m.end;
      else
        spans.push_back({m.begin, m.end});
      previous_match = m.is_match;
    }
    break;
  }
  case SplitBehavior::MergedWithPrevious: {
    bool previous_match = false;
    for (const PatternSpan &m : matches) {
      if (m.is_match && !previous_match && !spans.empty())
        spans.back().end = m.end;
      else
        spans.push_back({m.begin, m.end});
      previous_match = m.is_match;
    }
    break;
  }
  case SplitBehavior::MergedWithNext: {
    bool previous_match = false;
    for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
      if (it->is_match && !previous_match && !spans.empty())
        spans.back().begin = it->begin;
      else
        spans.push_back({it->begin, it->end});
      previous_match = it->is_match;
    }
    std::reverse(spans.begin(), spans.end());
    break;
  }
  }
  return spans;
}

} // namespace tico::llm::detail
