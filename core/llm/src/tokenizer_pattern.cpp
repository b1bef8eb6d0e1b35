#include "tokenizer_pattern.h"

#include "tico/support/error.h"

#include <cctype>

#include <unicode/regex.h>
#include <unicode/ustring.h>

namespace tico::llm::detail {

struct Pattern::Compiled {
  std::unique_ptr<icu::RegexPattern> pattern;
};

Pattern::Pattern(Pattern &&) noexcept = default;
Pattern &Pattern::operator=(Pattern &&) noexcept = default;
Pattern::~Pattern() = default;

Pattern Pattern::literal(std::string_view text, std::string_view what) {
  if (text.empty())
    throw Error("tokenizer.json: " + std::string(what) + " has an empty pattern, which is not supported");
  Pattern pattern;
  pattern.source_.assign(text);
  return pattern;
}

namespace {

// Refuses the regex constructs whose meaning differs between Oniguruma (Ruby syntax, as the
// library uses it) and ICU, so that no pattern silently splits differently. Measured: \w is
// inconsistent in Oniguruma (U+00B2 matches \w but not [\w]) and includes U+200C/U+200D only in
// ICU; \h is a hex digit in Oniguruma but horizontal space in ICU; (?m) is dot-all in Ruby
// syntax but multi-line in ICU; POSIX classes differ on combining marks.
// ICU works on UTF-16. (Texts are below 2 GiB: Tokenizer::encode refuses larger ones.)
icu::UnicodeString utf16Of(std::string_view utf8) {
  return icu::UnicodeString::fromUTF8(icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
}

[[noreturn]] void refuseConstruct(std::string_view expression, std::string_view what, const std::string &construct,
                                  const char *why) {
  throw Error("tokenizer.json: " + std::string(what) + " has a regex using " + construct +
              ", which is not supported (" + why + "): " + std::string(expression));
}

void refuseDivergentConstructs(std::string_view expression, std::string_view what) {
  auto refuse = [&](const std::string &construct, const char *why) {
    refuseConstruct(expression, what, construct, why);
  };
  bool in_class = false;
  for (std::size_t i = 0; i < expression.size(); ++i) {
    char c = expression[i];
    if (c == '\\' && i + 1 < expression.size()) {
      char e = expression[++i];
      switch (e) {
      case 'w':
      case 'W':
      case 'b':
      case 'B':
        refuseConstruct(expression, what, std::string("\\") + e,
                        "its Unicode word characters differ between Oniguruma and ICU");
      case 'h':
      case 'H':
      case 'R':
      case 'X':
      case 'K':
      case 'G':
      case 'y':
      case 'Y':
        refuseConstruct(expression, what, std::string("\\") + e, "it means something else, or nothing, in ICU");
      default:
        break;
      }
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < expression.size() && expression[i + 1] == ':')
        refuse("a POSIX bracket class", "their Unicode definitions differ between Oniguruma and ICU");
      if (c == ']')
        in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
      if (i + 1 < expression.size() && expression[i + 1] == '^')
        ++i;
      if (i + 1 < expression.size() && expression[i + 1] == ']')
        ++i; // a leading ']' is a literal
      continue;
    }
    if (c == '(' && i + 1 < expression.size() && expression[i + 1] == '?') {
      // Inline flags: only i (case-insensitive) and x (extended) mean the same in both.
      std::size_t j = i + 2;
      while (j < expression.size() && (std::isalpha(static_cast<unsigned char>(expression[j])) || expression[j] == '-'))
        ++j;
      if (j > i + 2 && j < expression.size() && (expression[j] == ':' || expression[j] == ')'))
        for (std::size_t k = i + 2; k < j; ++k)
          if (expression[k] != 'i' && expression[k] != 'x' && expression[k] != '-')
            refuse(std::string("the inline flag (?") + expression[k] + ")",
                   "Ruby syntax and ICU give it different meanings");
    }
  }
}

} // namespace

Pattern Pattern::regex(std::string_view expression, std::string_view what) {
  refuseDivergentConstructs(expression, what);
  UErrorCode status = U_ZERO_ERROR;
  UParseError parse_error{};
  icu::UnicodeString source = utf16Of(expression);
  // Oniguruma's Ruby syntax: ^ and $ match at every line, and only \n ends a line (for ^, $, .).
  std::unique_ptr<icu::RegexPattern> compiled(
      icu::RegexPattern::compile(source, UREGEX_MULTILINE | UREGEX_UNIX_LINES, parse_error, status));
  if (U_FAILURE(status) || !compiled)
    throw Error("tokenizer.json: " + std::string(what) + " has a regex that cannot be compiled (" +
                u_errorName(status) + " at offset " + std::to_string(parse_error.offset) +
                "): " + std::string(expression));
  Pattern pattern;
  pattern.source_.assign(expression);
  pattern.compiled_ = std::make_unique<Compiled>();
  pattern.compiled_->pattern = std::move(compiled);
  return pattern;
}

std::vector<Span> Pattern::matchSpans(std::string_view text) const {
  std::vector<Span> spans;
  if (!compiled_) {
    std::size_t at = text.find(source_);
    for (; at != std::string_view::npos; at = text.find(source_, at + source_.size()))
      spans.push_back({at, at + source_.size()});
    return spans;
  }
  // ICU matches UTF-16; keep a table from UTF-16 index to UTF-8 byte offset.
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString utf16 = utf16Of(text);
  std::vector<std::size_t> byte_of(static_cast<std::size_t>(utf16.length()) + 1);
  {
    std::size_t byte = 0;
    int32_t i = 0;
    while (i < utf16.length()) {
      UChar32 cp = utf16.char32At(i);
      byte_of[static_cast<std::size_t>(i)] = byte;
      int32_t units = U16_LENGTH(cp);
      if (units == 2)
        byte_of[static_cast<std::size_t>(i) + 1] = byte; // never a match boundary
      byte += static_cast<std::size_t>(U8_LENGTH(cp));
      i += units;
    }
    byte_of[static_cast<std::size_t>(utf16.length())] = byte;
  }
  std::unique_ptr<icu::RegexMatcher> matcher(compiled_->pattern->matcher(utf16, status));
  if (U_FAILURE(status))
    throw Error("tokenizer: cannot create a matcher for regex " + source_ + ": " + u_errorName(status));
  // No backtracking depth limit: Oniguruma has none either, and `\s+(?!\S)` over a long run of
  // spaces would otherwise fail on large inputs.
  matcher->setStackLimit(0, status);
  bool have_previous = false;
  std::size_t previous_end = 0;
  while (matcher->find(status)) {
    std::size_t begin = byte_of[static_cast<std::size_t>(matcher->start(status))];
    std::size_t end = byte_of[static_cast<std::size_t>(matcher->end(status))];
    if (begin == end && have_previous && previous_end == end)
      continue; // Oniguruma's iterator skips an empty match right after the previous match
    spans.push_back({begin, end});
    have_previous = true;
    previous_end = end;
  }
  if (U_FAILURE(status))
    throw Error("tokenizer: regex " + source_ + " failed while matching: " + u_errorName(status));
  return spans;
}

std::vector<PatternSpan> Pattern::findMatches(std::string_view text) const {
  std::vector<PatternSpan> out;
  if (text.empty()) {
    out.push_back({0, 0, false});
    return out;
  }
  std::size_t previous = 0;
  for (const Span &m : matchSpans(text)) {
    if (previous != m.begin)
      out.push_back({previous, m.begin, false});
    out.push_back({m.begin, m.end, true});
    previous = m.end;
  }
  if (previous != text.size())
    out.push_back({previous, text.size(), false});
  return out;
}

Pattern loadPattern(const JsonValue &value, std::string_view what) {
  std::string where = std::string(what) + ".pattern";
  if (value.type() == JsonValue::Type::Object) {
    if (std::optional<JsonValue> text = value.find("String"))
      return Pattern::literal(text->asString(where + ".String"), what);
    if (std::optional<JsonValue> expression = value.find("Regex"))
      return Pattern::regex(expression->asString(where + ".Regex"), what);
  }
  throw Error("tokenizer.json: " + where + " must be {\"String\": ...} or {\"Regex\": ...}");
}

} // namespace tico::llm::detail
