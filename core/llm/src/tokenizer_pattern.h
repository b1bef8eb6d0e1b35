// The patterns of `Split` pre-tokenizers and of `Replace` normalizers/decoders.
//
// tokenizer.json gives them as {"String": "..."} (a literal) or {"Regex": "..."}. The reference
// library compiles both with Oniguruma; here literals are searched directly and regexes are
// compiled with ICU, whose syntax and matching semantics agree with Oniguruma's for the patterns
// tokenizers use (\p{L}, \p{N}, \s, (?i:...), lookahead, possessive and lazy quantifiers). The
// tests compare the GPT-2, Llama-3 and Qwen2 patterns against the library on every code point and
// a mixed corpus. Constructs whose meaning differs between the two engines (\w, \b, \h, POSIX
// classes, the m/s inline flags, ...) are refused. The one known remaining difference is that
// character classes follow the Unicode version of the ICU in use (ICU 72 on Debian bookworm:
// Unicode 15.0; the library: Unicode 16.0), i.e. characters assigned after Unicode 15.0.
#pragma once

#include "tokenizer_json.h"
#include "tokenizer_text.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tico::llm::detail {

class Pattern {
public:
  // `what` names the component in error messages ("pre_tokenizer Split").
  static Pattern literal(std::string_view text, std::string_view what);
  static Pattern regex(std::string_view expression, std::string_view what);

  Pattern(Pattern &&) noexcept;
  Pattern &operator=(Pattern &&) noexcept;
  ~Pattern();

  // Matches and the gaps between them, covering `text` (Pattern::find_matches): an empty text
  // gives one empty gap. Matches are leftmost, non-overlapping, found like Oniguruma's find_iter
  // (an empty match right after the previous match is skipped).
  std::vector<PatternSpan> findMatches(std::string_view text) const;

  bool isLiteral() const { return compiled_ == nullptr; }
  const std::string &source() const { return source_; }

private:
  struct Compiled;
  Pattern() = default;
  std::vector<Span> matchSpans(std::string_view text) const;

  std::string source_;
  std::unique_ptr<Compiled> compiled_; // null for literals
};

// Reads a pattern written as {"String": "..."} or {"Regex": "..."}.
Pattern loadPattern(const JsonValue &value, std::string_view what);

} // namespace tico::llm::detail
