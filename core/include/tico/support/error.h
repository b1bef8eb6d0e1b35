// Error reporting used across the core and plugins.
//
// Every failure the user can cause (bad input file, bad manifest, unsupported op, broken plugin)
// surfaces as a tico::Error whose message is complete on its own: the CLI prints what() and
// exits non-zero. Programming errors use assertions, not this type.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace tico {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

// A location inside a text file (manifest, textual IR). Lines and columns are 1-based;
// 0 means "unknown".
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  // "file:line:col" (parts that are unknown are omitted).
  std::string str() const;
};

// An error tied to a place in a text file; what() starts with "file:line:col: error: ".
class LocatedError : public Error {
public:
  LocatedError(SourceLocation where, const std::string &message);
  const SourceLocation &where() const { return where_; }

private:
  SourceLocation where_;
};

// Closest candidates to `word` among `choices` by edit distance, for "did you mean" hints.
// Returns "" when nothing is close enough, otherwise " (did you mean 'x'?)".
std::string didYouMean(const std::string &word, const std::vector<std::string> &choices);

} // namespace tico
