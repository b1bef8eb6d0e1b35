#include "tokenizer_json.h"

#include "tokenizer_utf8.h"

#include "tico/support/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace tico::llm::detail {
namespace {

// Deeper nesting than any tokenizer.json has; the limit keeps a hostile file from exhausting the
// stack of the recursive validator.
constexpr int kMaxDepth = 256;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Reads the 4 hex digits after "\u" at p (validated). Returns the code unit.
std::uint32_t readHex4(const char *p) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value = value * 16 + static_cast<std::uint32_t>(hexDigitValue(p[i]));
  return value;
}

// Recursive-descent validator over the whole document.
class Validator {
public:
  Validator(std::string_view text, JsonDocumentIndex &index)
      : index_(index), begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  const char *validateDocument() {
    skipSpace();
    const char *root = p_;
    value(0);
    skipSpace();
    if (p_ != end_)
      fail("unexpected data after the JSON value");
    return root;
  }

private:
  [[noreturn]] void fail(const std::string &why) const {
    throw Error("tokenizer.json: invalid JSON at byte " + std::to_string(p_ - begin_) + ": " + why);
  }

  void skipSpace() {
    while (p_ < end_ && isSpace(*p_))
      ++p_;
  }

  void literal(const char *word) {
    std::size_t n = std::strlen(word);
    if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0)
      fail("unexpected character");
    p_ += n;
  }

  void value(int depth) {
    if (p_ >= end_)
      fail("unexpected end of input");
    switch (*p_) {
    case '{':
      container(depth + 1, true);
      return;
    case '[':
      container(depth + 1, false);
      return;
    case '"':
      string();
      return;
    case 't':
      literal("true");
      return;
    case 'f':
      literal("false");
      return;
    case 'n':
      literal("null");
      return;
    default:
      number();
      return;
    }
  }

  void record(const char *start, std::size_t count) {
    if (static_cast<std::size_t>(p_ - start) >= JsonDocumentIndex::kLargeBytes)
      index_.large.push_back({start, p_, count});
  }

  // An object ('{' ... '}', keyed members) or an array ('[' ... ']'): the same walk.
  void container(int depth, bool keyed) {
    if (depth > kMaxDepth)
      fail("nesting deeper than " + std::to_string(kMaxDepth));
    const char close = keyed ? '}' : ']';
    const char *start = p_;
    std::size_t count = 0;
    ++p_;
    skipSpace();
    if (p_ < end_ && *p_ == close) {
      ++p_;
      return;
    }
    for (;;) {
      ++count;
      if (keyed) {
        if (p_ >= end_ || *p_ != '"')
          fail("expected a string key");
        string();
        skipSpace();
        if (p_ >= end_ || *p_ != ':')
          fail("expected ':'");
        ++p_;
        skipSpace();
      }
      value(depth);
      skipSpace();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        skipSpace();
        continue;
      }
      if (p_ < end_ && *p_ == close) {
        ++p_;
        record(start, count);
        return;
      }
      fail(std::string("expected ',' or '") + close + "'");
    }
  }

  void string() {
    ++p_; // opening quote
    for (;;) {
      // Fast scan over plain ASCII.
      while (p_ < end_ && static_cast<unsigned char>(*p_) >= 0x20 && *p_ != '"' && *p_ != '\\' &&
             static_cast<unsigned char>(*p_) < 0x80)
        ++p_;
      if (p_ >= end_)
        fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return;
      }
      if (c < 0x20)
        fail("control character in string");
      if (c == '\\') {
        escape();
        continue;
      }
      std::size_t n = utf8ValidSequenceLength(reinterpret_cast<const unsigned char *>(p_),
                                              static_cast<std::size_t>(end_ - p_));
      if (n == 0)
        fail("invalid UTF-8 in string");
      p_ += n;
    }
  }

  void escape() {
    ++p_; // backslash
    if (p_ >= end_)
      fail("unterminated escape");
    char c = *p_++;
    switch (c) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return;
    case 'u': {
      std::uint32_t unit = hex4();
      if (unit >= 0xDC00 && unit <= 0xDFFF)
        fail("lone low surrogate in \\u escape");
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
          fail("lone high surrogate in \\u escape");
        p_ += 2;
        std::uint32_t low = hex4();
        if (low < 0xDC00 || low > 0xDFFF)
          fail("high surrogate not followed by a low surrogate");
      }
      return;
    }
    default:
      --p_;
      fail("invalid escape");
    }
  }

  std::uint32_t hex4() {
    if (end_ - p_ < 4)
      fail("truncated \\u escape");
    for (int i = 0; i < 4; ++i)
      if (hexDigitValue(p_[i]) < 0)
        fail("invalid \\u escape");
    std::uint32_t unit = readHex4(p_);
    p_ += 4;
    return unit;
  }

  void number() {
    const char *start = p_;
    if (p_ < end_ && *p_ == '-')
      ++p_;
    if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9'))
      fail(start == p_ ? "unexpected character" : "invalid number");
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9'))
        fail("invalid number");
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
        ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9'))
        fail("invalid number");
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
    }
  }

  JsonDocumentIndex &index_;
  const char *begin_;
  const char *p_;
  const char *end_;
};

const char *typeName(JsonValue::Type type) {
  switch (type) {
  case JsonValue::Type::Null:
    return "null";
  case JsonValue::Type::Bool:
    return "a boolean";
  case JsonValue::Type::Number:
    return "a number";
  case JsonValue::Type::String:
    return "a string";
  case JsonValue::Type::Array:
    return "an array";
  case JsonValue::Type::Object:
    return "an object";
  }
  return "?";
}

} // namespace

JsonDocument::JsonDocument(std::string_view text) : text_(text) {
  Validator validator(text, index_);
  root_begin_ = validator.validateDocument();
  // Containers were recorded as they closed (inner ones first).
  using Container = JsonDocumentIndex::Container;
  std::sort(index_.large.begin(), index_.large.end(),
            [](const Container &a, const Container &b) { return a.begin < b.begin; });
  root_end_ = text.data() + text.size();
  while (root_end_ > root_begin_ && isSpace(root_end_[-1]))
    --root_end_;
}

JsonValue::Type JsonValue::type() const {
  switch (*begin_) {
  case '{':
    return Type::Object;
  case '[':
    return Type::Array;
  case '"':
    return Type::String;
  case 't':
  case 'f':
    return Type::Bool;
  case 'n':
    return Type::Null;
  default:
    return Type::Number;
  }
}

void JsonValue::expect(Type type, std::string_view what) const {
  if (this->type() != type)
    throw Error("tokenizer.json: " + std::string(what) + " must be " + typeName(type) + ", found " +
                typeName(this->type()) + " (byte " + std::to_string(offset()) + ")");
}

bool JsonValue::asBool(std::string_view what) const {
  expect(Type::Bool, what);
  return *begin_ == 't';
}

double JsonValue::asNumber(std::string_view what) const {
  expect(Type::Number, what);
  double value = 0;
  auto result = std::from_chars(begin_, end_, value);
  if (result.ec != std::errc())
    throw Error("tokenizer.json: " + std::string(what) + " is out of range (byte " + std::to_string(offset()) + ")");
  return value;
}

std::int64_t JsonValue::asInteger(std::string_view what, std::int64_t min, std::int64_t max) const {
  double value = asNumber(what);
  if (value != std::floor(value) || value < static_cast<double>(min) || value > static_cast<double>(max))
    throw Error("tokenizer.json: " + std::string(what) + " must be an integer in [" + std::to_string(min) + ", " +
                std::to_string(max) + "], found " + std::string(begin_, end_));
  return static_cast<std::int64_t>(value);
}

std::string JsonValue::asString(std::string_view what) const {
  std::string scratch;
  std::string_view view = stringView(what, scratch);
  return std::string(view);
}

std::string_view JsonValue::stringView(std::string_view what, std::string &scratch) const {
  expect(Type::String, what);
  const char *body = begin_ + 1;
  const char *body_end = end_ - 1;
  const char *backslash = static_cast<const char *>(std::memchr(body, '\\', static_cast<std::size_t>(body_end - body)));
  if (!backslash)
    return std::string_view(body, static_cast<std::size_t>(body_end - body));
  scratch.assign(body, backslash);
  const char *p = backslash;
  while (p < body_end) {
    if (*p != '\\') {
      scratch.push_back(*p++);
      continue;
    }
    ++p;
    char c = *p++;
    switch (c) {
    case 'b':
      scratch.push_back('\b');
      break;
    case 'f':
      scratch.push_back('\f');
      break;
    case 'n':
      scratch.push_back('\n');
      break;
    case 'r':
      scratch.push_back('\r');
      break;
    case 't':
      scratch.push_back('\t');
      break;
    case 'u': {
      std::uint32_t cp = readHex4(p);
      p += 4;
      if (cp >= 0xD800 && cp <= 0xDBFF) { // validated: a low surrogate escape follows
        std::uint32_t low = readHex4(p + 2);
        p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      appendUtf8(scratch, static_cast<char32_t>(cp));
      break;
    }
    default: // '"', '\\', '/'
      scratch.push_back(c);
      break;
    }
  }
  return scratch;
}

std::optional<JsonValue> JsonValue::find(std::string_view key) const {
  std::optional<JsonValue> found;
  forEachMember("object", [&](std::string_view name, JsonValue value) {
    if (!found && name == key)
      found = value;
  });
  return found;
}

std::optional<JsonValue> JsonValue::findNonNull(std::string_view key) const {
  std::optional<JsonValue> found = find(key);
  if (found && found->isNull())
    return std::nullopt;
  return found;
}

const char *JsonValue::skipSpace(const char *p) const {
  while (isSpace(*p))
    ++p;
  return p;
}

const char *JsonValue::skipValue(const char *p) const {
  switch (*p) {
  case '"':
    // Strings in tokenizer.json are short; a byte loop beats memchr's call overhead. The
    // document was validated, so the closing quote exists.
    for (++p; *p != '"'; ++p)
      if (*p == '\\')
        ++p;
    return p + 1;
  case '{':
  case '[': {
    if (const JsonDocumentIndex::Container *container = index_->find(p))
      return container->end;
    int depth = 0;
    for (;;) {
      char c = *p;
      if (c == '"') {
        p = skipValue(p);
        continue;
      }
      if (c == '{' || c == '[')
        ++depth;
      else if (c == '}' || c == ']') {
        if (--depth == 0)
          return p + 1;
      }
      ++p;
    }
  }
  case 't':
    return p + 4;
  case 'f':
    return p + 5;
  case 'n':
    return p + 4;
  default:
    while ((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E')
      ++p;
    return p;
  }
}

JsonObject::JsonObject(const JsonValue &object, std::string_view what) {
  object.forEachMember(what,
                       [&](std::string_view key, JsonValue value) { members_.emplace_back(std::string(key), value); });
}

std::optional<JsonValue> JsonObject::find(std::string_view key) const {
  for (const auto &[name, value] : members_)
    if (name == key)
      return value;
  return std::nullopt;
}

std::optional<JsonValue> JsonObject::findNonNull(std::string_view key) const {
  std::optional<JsonValue> found = find(key);
  if (found && found->isNull())
    return std::nullopt;
  return found;
}

std::string componentType(const JsonValue &component, std::string_view what) {
  if (component.type() != JsonValue::Type::Object)
    throw Error("tokenizer.json: " + std::string(what) + " must be an object");
  std::optional<JsonValue> type = component.find("type");
  if (!type)
    throw Error("tokenizer.json: " + std::string(what) + " has no \"type\" field");
  return type->asString(std::string(what) + ".type");
}

void refuseComponent(std::string_view what, std::string_view type, std::string_view supported) {
  throw Error("tokenizer.json: unsupported " + std::string(what) + " type '" + std::string(type) + "' (supported: " +
              std::string(supported) + ")");
}

} // namespace tico::llm::detail
