#include "tico/support/error.h"

#include <algorithm>
#include <limits>

namespace tico {

std::string SourceLocation::str() const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0)
      out += ":" + std::to_string(column);
  }
  return out;
}

LocatedError::LocatedError(SourceLocation where, const std::string &message)
    : Error(where.str() + ": error: " + message), where_(std::move(where)) {}

namespace {
std::size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
} // namespace

std::string didYouMean(const std::string &word, const std::vector<std::string> &choices) {
  // Accept up to a third of the word's length (at least 2 edits) so hints stay plausible.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::string best_choice;
  for (const auto &choice : choices) {
    // The distance is at least the length difference: a choice that far off cannot be the
    // hint, and skipping it keeps a huge misspelt name (megabytes) from costing |word| x
    // |choice| per candidate.
    const std::size_t gap = word.size() > choice.size() ? word.size() - choice.size() : choice.size() - word.size();
    if (gap > limit)
      continue;
    std::size_t d = editDistance(word, choice);
    if (d < best || (d == best && choice < best_choice)) {
      best = d;
      best_choice = choice;
    }
  }
  if (best_choice.empty() || best > limit)
    return {};
  return " (did you mean '" + best_choice + "'?)";
}

} // namespace tico
