#include "pipeline/yaml_quotes.h"

#include "tico/support/error.h"

namespace tico::manifest {
namespace {

// True when the quoted scalar opening at `open` has its closing quote in `text`. Double
// quotes escape with a backslash; single quotes escape themselves by doubling.
bool closed(std::string_view text, std::size_t open) {
  const char quote = text[open];
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] != quote)
      continue;
    if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
      ++i;
      continue;
    }
    return true;
  }
  return false;
}

void check(const YAML::Node &node, std::string_view text, const std::string &file) {
  if (!node.IsDefined())
    return;
  if (node.IsScalar()) {
    const YAML::Mark mark = node.Mark();
    // Only scalars whose text starts with a quote are quoted ones; the mark of a plain scalar
    // points at its first character, which is never a quote.
    if (mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text.size())
      return;
    const char first = text[static_cast<std::size_t>(mark.pos)];
    if ((first == '"' || first == '\'') && !closed(text, static_cast<std::size_t>(mark.pos)))
      throw LocatedError(SourceLocation{file, mark.line + 1, mark.column + 1},
                         std::string("invalid YAML: unterminated ") + (first == '"' ? "double" : "single") +
                             "-quoted string (no closing " + first + " before the end of the file)");
    return;
  }
  if (node.IsSequence()) {
    for (const auto &item : node)
      check(item, text, file);
  } else if (node.IsMap()) {
    for (const auto &entry : node) {
      check(entry.first, text, file);
      check(entry.second, text, file);
    }
  }
}

} // namespace

void checkQuotesClosed(const YAML::Node &root, std::string_view text, const std::string &file) {
  check(root, text, file);
}

} // namespace tico::manifest
