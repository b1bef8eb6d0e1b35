// Pieces of manifest syntax shared by the YAML parser, the printer and the validator: the
// spellings of stage kinds, strategies and conditions, the typing of plain scalars, and the
// compact pass form `name{key=value,...}`.
#pragma once

#include "tico/pipeline/manifest.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico::manifest {

constexpr const char *kSchemaVersion = "tico.pipeline/v1";

const char *kindText(StageKind kind);
std::optional<StageKind> parseKind(std::string_view text);
const std::vector<std::string> &kindTexts();

const char *strategyText(PassStrategy strategy);
std::optional<PassStrategy> parseStrategy(std::string_view text);
const std::vector<std::string> &strategyTexts();

// Throws LocatedError (at the misplaced stage) when `next` cannot follow `before`: ATen-level
// stages run before lowering and Circle stages after it, there is at most one lower stage, and
// without one the model is lowered right before the first Circle stage. Names are not checked.
void checkStageCanFollow(const std::vector<Stage> &before, const Stage &next);

// "always", "has-quant-ops", "has-op(<op key>)"; throws tico::Error describing the problem
// (the caller adds the location).
StageCondition parseCondition(std::string_view text);

// What a plain (unquoted) YAML scalar means: true/false, an integer, a float, null or text.
struct PlainScalar {
  enum class Kind : uint8_t { Null, Bool, Int, Float, String } kind = Kind::String;
  OptionValue value;
};
PlainScalar typePlainScalar(const std::string &text);

// Pass names and option keys: letters, digits, '-', '_' and '.'.
bool isIdentifier(std::string_view text);

// A list of element texts becomes an IntList when every element is an unquoted integer, else a
// StringList of the texts.
struct ListElement {
  std::string text;
  bool quoted = false;
};
OptionValue listValue(const std::vector<ListElement> &elements);

// Parses one scalar pass entry: "name", "name{key=value,...}" or several of those separated
// by commas. `where` is the scalar's location; `columns_exact` says whether offsets inside
// the text map to columns (true for plain single-line scalars). Throws LocatedError.
std::vector<PassInvocation> parseCompactPasses(const std::string &text, const SourceLocation &where,
                                               bool columns_exact);

} // namespace tico::manifest
