#include "tokenizer_post_processor.h"

#include "tico/support/error.h"

#include <map>
#include <string>

namespace tico::llm::detail {
namespace {

constexpr std::string_view kSupported = "TemplateProcessing, ByteLevel, Sequence";

class TemplateProcessor final : public PostProcessor {
public:
  // One element of the template: the sequence itself, or the ids of a special token.
  struct Part {
    bool is_sequence = false;
    std::vector<TokenId> ids;
  };

  explicit TemplateProcessor(std::vector<Part> parts) : parts_(std::move(parts)) {}

  void process(std::vector<TokenId> &ids, bool add_special_tokens) const override {
    std::vector<TokenId> out;
    out.reserve(ids.size() + 4);
    for (const Part &part : parts_) {
      if (part.is_sequence)
        out.insert(out.end(), ids.begin(), ids.end());
      else if (add_special_tokens)
        out.insert(out.end(), part.ids.begin(), part.ids.end());
    }
    ids = std::move(out);
  }

  std::optional<TokenId> tokenBeforeSequence() const override {
    for (std::size_t i = 1; i < parts_.size(); ++i)
      if (parts_[i].is_sequence && !parts_[i - 1].is_sequence && !parts_[i - 1].ids.empty())
        return parts_[i - 1].ids.front();
    return std::nullopt;
  }

  std::optional<TokenId> tokenAfterSequence() const override {
    for (std::size_t i = 0; i + 1 < parts_.size(); ++i)
      if (parts_[i].is_sequence && !parts_[i + 1].is_sequence && !parts_[i + 1].ids.empty())
        return parts_[i + 1].ids.front();
    return std::nullopt;
  }

private:
  std::vector<Part> parts_;
};

class NoOpProcessor final : public PostProcessor {
public:
  void process(std::vector<TokenId> &, bool) const override {}
};

class SequenceProcessor final : public PostProcessor {
public:
  explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> steps) : steps_(std::move(steps)) {}
  void process(std::vector<TokenId> &ids, bool add_special_tokens) const override {
    for (const auto &step : steps_)
      step->process(ids, add_special_tokens);
  }
  std::optional<TokenId> tokenBeforeSequence() const override {
    for (const auto &step : steps_)
      if (std::optional<TokenId> id = step->tokenBeforeSequence())
        return id;
    return std::nullopt;
  }
  std::optional<TokenId> tokenAfterSequence() const override {
    for (const auto &step : steps_)
      if (std::optional<TokenId> id = step->tokenAfterSequence())
        return id;
    return std::nullopt;
  }

private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

std::unique_ptr<PostProcessor> loadTemplate(const JsonValue &config, const std::string &where) {
  // special_tokens: {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}, ...}
  std::map<std::string, std::vector<TokenId>> special_ids;
  if (std::optional<JsonValue> specials = config.findNonNull("special_tokens")) {
    specials->forEachMember(where + ".special_tokens", [&](std::string_view name, JsonValue token) {
      std::vector<TokenId> ids;
      if (std::optional<JsonValue> list = token.find("ids"))
        list->forEachItem(where + ".special_tokens.ids", [&](JsonValue id) {
          ids.push_back(static_cast<TokenId>(id.asInteger(where + ".special_tokens.ids", 0, INT32_MAX)));
        });
      special_ids[std::string(name)] = std::move(ids);
    });
  }
  std::optional<JsonValue> single = config.find("single");
  if (!single)
    throw Error("tokenizer.json: " + where + " needs a \"single\" template");
  std::vector<TemplateProcessor::Part> parts;
  single->forEachItem(where + ".single", [&](JsonValue piece) {
    if (piece.type() != JsonValue::Type::Object)
      throw Error("tokenizer.json: " + where +
                  ".single must list {\"Sequence\": ...} / {\"SpecialToken\": ...} objects "
                  "(the string form is not supported)");
    if (std::optional<JsonValue> sequence = piece.find("Sequence")) {
      std::string id = sequence->find("id") ? sequence->find("id")->asString(where + ".single.Sequence.id") : "A";
      if (id != "A")
        throw Error("tokenizer.json: " + where + "'s single template refers to sequence " + id);
      parts.push_back({true, {}});
      return;
    }
    if (std::optional<JsonValue> special = piece.find("SpecialToken")) {
      std::optional<JsonValue> id = special->find("id");
      if (!id)
        throw Error("tokenizer.json: " + where + ".single has a SpecialToken without id");
      std::string name = id->asString(where + ".single.SpecialToken.id");
      auto found = special_ids.find(name);
      if (found == special_ids.end())
        throw Error("tokenizer.json: " + where + " uses special token '" + name + "' missing from its special_tokens");
      parts.push_back({false, found->second});
      return;
    }
    throw Error("tokenizer.json: " + where + ".single has an element that is neither Sequence nor SpecialToken");
  });
  return std::make_unique<TemplateProcessor>(std::move(parts));
}

} // namespace

std::unique_ptr<PostProcessor> loadPostProcessor(const JsonValue &config, std::string_view what) {
  std::string type = componentType(config, what);
  std::string where = std::string(what) + " " + type;
  if (type == "TemplateProcessing")
    return loadTemplate(config, where);
  if (type == "ByteLevel")
    return std::make_unique<NoOpProcessor>();
  if (type == "Sequence") {
    std::optional<JsonValue> list = config.find("processors");
    if (!list)
      throw Error("tokenizer.json: " + where + " needs \"processors\"");
    std::vector<std::unique_ptr<PostProcessor>> steps;
    list->forEachItem(where + ".processors", [&](JsonValue item) { steps.push_back(loadPostProcessor(item, what)); });
    return std::make_unique<SequenceProcessor>(std::move(steps));
  }
  refuseComponent(what, type, kSupported);
}

} // namespace tico::llm::detail
