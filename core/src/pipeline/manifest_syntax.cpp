#include "pipeline/manifest_syntax.h"

#include "tico/ir/op_key.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace tico::manifest {

namespace {

struct KindName {
  StageKind kind;
  const char *text;
};
constexpr std::array<KindName, 4> kKinds = {{
    {StageKind::Passes, "passes"},
    {StageKind::Quantize, "quantize"},
    {StageKind::Lower, "lower"},
    {StageKind::Circle, "circle"},
}};

struct StrategyName {
  PassStrategy strategy;
  const char *text;
};
constexpr std::array<StrategyName, 3> kStrategies = {{
    {PassStrategy::Restart, "restart"},
    {PassStrategy::UntilNoChange, "until_no_change"},
    {PassStrategy::Once, "once"},
}};

bool isDigits(std::string_view text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

// [digits][.digits][e[sign]digits] with at least one digit before the exponent and a '.' or an
// exponent present (otherwise it is an integer).
bool looksLikeFloat(std::string_view text) {
  std::size_t i = 0, mantissa_digits = 0;
  bool dot = false, exponent = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    ++i, ++mantissa_digits;
  if (i < text.size() && text[i] == '.') {
    dot = true;
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0)
    return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    exponent = true;
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-'))
      ++i;
    if (!isDigits(text.substr(i)))
      return false;
    i = text.size();
  }
  return i == text.size() && (dot || exponent);
}

bool oneOf(std::string_view text, std::initializer_list<std::string_view> choices) {
  for (auto choice : choices)
    if (text == choice)
      return true;
  return false;
}

} // namespace

const char *kindText(StageKind kind) {
  for (const auto &entry : kKinds)
    if (entry.kind == kind)
      return entry.text;
  return "passes";
}

std::optional<StageKind> parseKind(std::string_view text) {
  for (const auto &entry : kKinds)
    if (text == entry.text)
      return entry.kind;
  return std::nullopt;
}

const std::vector<std::string> &kindTexts() {
  static const std::vector<std::string> texts = {"passes", "quantize", "lower", "circle"};
  return texts;
}

const char *strategyText(PassStrategy strategy) {
  for (const auto &entry : kStrategies)
    if (entry.strategy == strategy)
      return entry.text;
  return "restart";
}

std::optional<PassStrategy> parseStrategy(std::string_view text) {
  for (const auto &entry : kStrategies)
    if (text == entry.text)
      return entry.strategy;
  return std::nullopt;
}

const std::vector<std::string> &strategyTexts() {
  static const std::vector<std::string> texts = {"restart", "until_no_change", "once"};
  return texts;
}

StageCondition parseCondition(std::string_view text) {
  StageCondition condition;
  if (text == "always")
    return condition;
  if (text == "has-quant-ops") {
    condition.kind = StageCondition::Kind::HasQuantOps;
    return condition;
  }
  const std::string_view prefix = "has-op(";
  if (text.starts_with(prefix) && text.ends_with(")")) {
    std::string_view inner = text.substr(prefix.size(), text.size() - prefix.size() - 1);
    while (!inner.empty() && inner.front() == ' ')
      inner.remove_prefix(1);
    while (!inner.empty() && inner.back() == ' ')
      inner.remove_suffix(1);
    std::optional<OpKey> key = OpKey::parse(inner);
    if (!key)
      throw Error("'" + std::string(inner) + "' in condition '" + std::string(text) +
                  "' is not an op name (expected e.g. has-op(aten::add.Tensor))");
    condition.kind = StageCondition::Kind::HasOp;
    condition.op = key->str();
    return condition;
  }
  throw Error("unknown condition '" + std::string(text) +
              "'; expected always, has-quant-ops or has-op(<op key>)" +
              didYouMean(std::string(text), {"always", "has-quant-ops"}));
}

PlainScalar typePlainScalar(const std::string &text) {
  PlainScalar out;
  if (oneOf(text, {"", "~", "null", "Null", "NULL"})) {
    out.kind = PlainScalar::Kind::Null;
    return out;
  }
  if (oneOf(text, {"true", "True", "TRUE"}) || oneOf(text, {"false", "False", "FALSE"})) {
    out.kind = PlainScalar::Kind::Bool;
    out.value = text[0] == 't' || text[0] == 'T';
    return out;
  }
  std::string_view body = text;
  bool negative = false;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (isDigits(body)) {
    // Parse with the sign so INT64_MIN is representable; out-of-range integers stay text.
    std::string digits = (negative ? "-" : "") + std::string(body);
    int64_t value = 0;
    auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (result.ec == std::errc() && result.ptr == digits.data() + digits.size()) {
      out.kind = PlainScalar::Kind::Int;
      out.value = value;
    } else {
      out.value = text;
    }
    return out;
  }
  if (oneOf(body, {".inf", ".Inf", ".INF"})) {
    out.kind = PlainScalar::Kind::Float;
    out.value = negative ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
    return out;
  }
  if (oneOf(text, {".nan", ".NaN", ".NAN"})) {
    out.kind = PlainScalar::Kind::Float;
    out.value = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  if (looksLikeFloat(body)) {
    double value = 0;
    auto result = std::from_chars(body.data(), body.data() + body.size(), value);
    if (result.ec == std::errc() && result.ptr == body.data() + body.size()) {
      out.kind = PlainScalar::Kind::Float;
      out.value = negative ? -value : value;
      return out;
    }
  }
  out.value = text;
  return out;
}

bool isIdentifier(std::string_view text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

OptionValue listValue(const std::vector<ListElement> &elements) {
  std::vector<int64_t> ints;
  for (const auto &element : elements) {
    if (element.quoted)
      break;
    PlainScalar scalar = typePlainScalar(element.text);
    if (scalar.kind != PlainScalar::Kind::Int)
      break;
    ints.push_back(std::get<int64_t>(scalar.value));
  }
  if (ints.size() == elements.size())
    return ints;
  std::vector<std::string> strings;
  for (const auto &element : elements)
    strings.push_back(element.text);
  return strings;
}

namespace {

// Recursive-descent reader of the compact form; offsets become columns when they are exact.
class CompactParser {
public:
  CompactParser(const std::string &text, SourceLocation where, bool columns_exact)
      : text_(text), where_(std::move(where)), exact_(columns_exact) {}

  std::vector<PassInvocation> parse() {
    std::vector<PassInvocation> out;
    skipSpaces();
    while (true) {
      PassInvocation invocation;
      invocation.where = at(pos_);
      invocation.name = identifier("a pass name");
      skipSpaces();
      if (peek('{'))
        parseOptions(invocation);
      skipSpaces();
      out.push_back(std::move(invocation));
      if (pos_ == text_.size())
        return out;
      if (!peek(','))
        error(pos_, "unexpected '" + std::string(1, text_[pos_]) + "' after pass '" +
                        out.back().name + "' (expected ',' or '{')");
      ++pos_;
      skipSpaces();
    }
  }

private:
  SourceLocation at(std::size_t offset) const {
    SourceLocation location = where_;
    if (exact_ && location.column > 0)
      location.column += static_cast<int>(offset);
    return location;
  }
  [[noreturn]] void error(std::size_t offset, const std::string &message) const {
    throw LocatedError(at(offset), message + " in '" + text_ + "'");
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skipSpaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ')
      ++pos_;
  }
  std::string identifier(const char *what) {
    std::size_t start = pos_;
    while (pos_ < text_.size() && isIdentifier(std::string_view(&text_[pos_], 1)))
      ++pos_;
    if (pos_ == start)
      error(start, std::string("expected ") + what);
    return text_.substr(start, pos_ - start);
  }

  void parseOptions(PassInvocation &invocation) {
    ++pos_; // '{'
    skipSpaces();
    if (peek('}')) {
      ++pos_;
      return;
    }
    while (true) {
      std::size_t key_start = pos_;
      std::string key = identifier("an option name");
      skipSpaces();
      if (!peek('='))
        error(pos_, "expected '=' after option '" + key + "'");
      ++pos_;
      skipSpaces();
      std::size_t value_start = pos_;
      OptionValue value = parseValue(key);
      if (invocation.options.count(key))
        error(key_start, "option '" + key + "' is given twice");
      invocation.options.emplace(key, std::move(value));
      invocation.option_locations.emplace(key, at(value_start));
      skipSpaces();
      if (peek(',')) {
        ++pos_;
        skipSpaces();
        continue;
      }
      if (peek('}')) {
        ++pos_;
        return;
      }
      error(pos_, "expected ',' or '}' after option '" + key + "'");
    }
  }

  // A quoted or bare element; bare text ends at any of `stops`.
  ListElement element(const char *stops) {
    ListElement out;
    if (peek('"') || peek('\'')) {
      char quote = text_[pos_];
      std::size_t start = pos_++;
      while (pos_ < text_.size() && text_[pos_] != quote) {
        if (quote == '"' && text_[pos_] == '\\' && pos_ + 1 < text_.size())
          ++pos_;
        out.text += text_[pos_++];
      }
      if (pos_ == text_.size())
        error(start, "unterminated string");
      ++pos_;
      out.quoted = true;
      return out;
    }
    std::size_t start = pos_;
    while (pos_ < text_.size() && std::string_view(stops).find(text_[pos_]) == std::string::npos)
      ++pos_;
    out.text = text_.substr(start, pos_ - start);
    while (!out.text.empty() && out.text.back() == ' ')
      out.text.pop_back();
    return out;
  }

  OptionValue parseValue(const std::string &key) {
    std::size_t start = pos_;
    if (peek('[')) {
      ++pos_;
      skipSpaces();
      std::vector<ListElement> elements;
      if (peek(']')) {
        ++pos_;
        return listValue(elements);
      }
      while (true) {
        std::size_t element_start = pos_;
        ListElement item = element(",]{}[");
        if (!item.quoted && typePlainScalar(item.text).kind == PlainScalar::Kind::Null)
          error(element_start, "empty element in the list of option '" + key + "'");
        elements.push_back(std::move(item));
        skipSpaces();
        if (peek(',')) {
          ++pos_;
          skipSpaces();
          continue;
        }
        if (peek(']')) {
          ++pos_;
          return listValue(elements);
        }
        error(pos_, "expected ',' or ']' in the list of option '" + key + "'");
      }
    }
    ListElement item = element(",}[]{");
    if (item.quoted)
      return item.text;
    PlainScalar scalar = typePlainScalar(item.text);
    if (scalar.kind == PlainScalar::Kind::Null)
      error(start, "option '" + key + "' has no value");
    return scalar.value;
  }

  const std::string &text_;
  SourceLocation where_;
  bool exact_;
  std::size_t pos_ = 0;
};

} // namespace

std::vector<PassInvocation> parseCompactPasses(const std::string &text, const SourceLocation &where,
                                               bool columns_exact) {
  return CompactParser(text, where, columns_exact).parse();
}

} // namespace tico::manifest
