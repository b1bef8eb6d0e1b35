// A small read-only JSON reader for tokenizer.json.
//
// Gemma 3's tokenizer.json is 33 MB (262,144 vocabulary entries, 514,906 merges). Building a DOM
// of it with a general JSON library takes most of a second and several hundred MB; the loader
// only needs to walk it once. So the document is validated once (syntax, UTF-8, nesting depth)
// and values are then read in place: a JsonValue is just the span of text of one value, strings
// without escapes are returned as views into the document, and walking an object or array
// re-scans its text. The document text must outlive every JsonValue taken from it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tico::llm::detail {

// What validation learned about the document: the end and element count of every large
// container, so that walking past the vocabulary or merges is a jump and tables can be sized
// before they are filled.
struct JsonDocumentIndex {
  struct Container {
    const char *begin;
    const char *end; // one past the closing bracket
    std::size_t count;
  };
  std::vector<Container> large; // containers spanning at least kLargeBytes, sorted by begin
  static constexpr std::size_t kLargeBytes = 1 << 16;

  const Container *find(const char *begin) const {
    auto at = std::lower_bound(large.begin(), large.end(), begin,
                               [](const Container &container, const char *where) { return container.begin < where; });
    return at != large.end() && at->begin == begin ? &*at : nullptr;
  }
};

class JsonValue {
public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  JsonValue() = default;

  Type type() const;
  bool isNull() const { return type() == Type::Null; }
  // Number of elements of a large container (see JsonDocumentIndex), else 0: a sizing hint.
  std::size_t sizeHint() const {
    const JsonDocumentIndex::Container *container = index_->find(begin_);
    return container ? container->count : 0;
  }
  // Byte offset of the value in the document, for error messages.
  std::size_t offset() const { return static_cast<std::size_t>(begin_ - document_); }

  // The accessors throw tico::Error naming `what` (e.g. "model.vocab") on a type mismatch.
  bool asBool(std::string_view what) const;
  double asNumber(std::string_view what) const;
  // An integral number in [min, max].
  std::int64_t asInteger(std::string_view what, std::int64_t min, std::int64_t max) const;
  std::string asString(std::string_view what) const;
  // The string's contents: a view into the document when it has no escapes, else decoded into
  // `scratch` (and valid until `scratch` changes).
  std::string_view stringView(std::string_view what, std::string &scratch) const;

  // Calls f(JsonValue) for each element of an array.
  template <class F> void forEachItem(std::string_view what, F &&f) const {
    expect(Type::Array, what);
    const char *p = skipSpace(begin_ + 1);
    if (*p == ']')
      return;
    for (;;) {
      const char *item_end = skipValue(p);
      f(JsonValue(index_, document_, p, item_end));
      p = skipSpace(item_end);
      if (*p == ']')
        return;
      p = skipSpace(p + 1); // ','
    }
  }

  // Calls f(std::string_view key, JsonValue value) for each member of an object, in document
  // order (duplicates included). The key view is only valid during the call.
  template <class F> void forEachMember(std::string_view what, F &&f) const {
    expect(Type::Object, what);
    std::string scratch;
    const char *p = skipSpace(begin_ + 1);
    if (*p == '}')
      return;
    for (;;) {
      const char *key_end = skipValue(p);
      std::string_view key = JsonValue(index_, document_, p, key_end).stringView(what, scratch);
      const char *value_begin = skipSpace(skipSpace(key_end) + 1); // ':'
      const char *value_end = skipValue(value_begin);
      f(key, JsonValue(index_, document_, value_begin, value_end));
      p = skipSpace(value_end);
      if (*p == '}')
        return;
      p = skipSpace(p + 1); // ','
    }
  }

  // The first member named `key` of an object; nullopt when absent.
  std::optional<JsonValue> find(std::string_view key) const;
  // Like find(), but a member whose value is null counts as absent (serde's Option fields).
  std::optional<JsonValue> findNonNull(std::string_view key) const;

private:
  friend class JsonDocument;
  JsonValue(const JsonDocumentIndex *index, const char *document, const char *begin, const char *end)
      : index_(index), document_(document), begin_(begin), end_(end) {}
  void expect(Type type, std::string_view what) const;
  // Both assume a validated document and a position inside a container, so the closing bracket
  // bounds every scan.
  const char *skipSpace(const char *p) const;
  const char *skipValue(const char *p) const;

  const JsonDocumentIndex *index_ = nullptr;
  const char *document_ = nullptr;
  const char *begin_ = nullptr;
  const char *end_ = nullptr;
};

// The members of an object read once, for objects whose fields are looked up several times:
// JsonValue::find re-scans the object, which for tokenizer.json's root and "model" means
// skipping the 30 MB vocabulary on every lookup.
class JsonObject {
public:
  JsonObject(const JsonValue &object, std::string_view what);
  std::optional<JsonValue> find(std::string_view key) const;
  std::optional<JsonValue> findNonNull(std::string_view key) const;

private:
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// The "type" of a tokenizer.json component (normalizer, pre_tokenizer, ...). Throws when absent:
// the untyped legacy forms are not accepted.
std::string componentType(const JsonValue &component, std::string_view what);

// Throws the error for a component type this implementation does not reproduce.
[[noreturn]] void refuseComponent(std::string_view what, std::string_view type, std::string_view supported);

// A validated JSON document. Throws tico::Error with the byte offset of the first problem.
// `text` must stay alive and unchanged while the document or its values are used; values must
// not outlive the document.
class JsonDocument {
public:
  explicit JsonDocument(std::string_view text);
  JsonDocument(const JsonDocument &) = delete;
  JsonDocument &operator=(const JsonDocument &) = delete;
  JsonValue root() const { return JsonValue(&index_, text_.data(), root_begin_, root_end_); }

private:
  std::string_view text_;
  JsonDocumentIndex index_;
  const char *root_begin_ = nullptr;
  const char *root_end_ = nullptr;
};

} // namespace tico::llm::detail
