#include "tokenizer_normalizers.h"

#include "tokenizer_pattern.h"
#include "tokenizer_unicode.h"

#include "tico/support/error.h"

#include <vector>

namespace tico::llm::detail {
namespace {

constexpr std::string_view kSupported = "Replace, Prepend, Sequence, NFC, NFD, NFKC, NFKD";

class ReplaceNormalizer final : public Normalizer {
public:
  ReplaceNormalizer(Pattern pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(Piece &piece) const override { piece.replaceMatches(pattern_.findMatches(piece.text), content_); }

private:
  Pattern pattern_;
  std::string content_;
};

class PrependNormalizer final : public Normalizer {
public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(Piece &piece) const override { piece.prepend(prefix_); }

private:
  std::string prefix_;
};

class UnicodeNormalizer final : public Normalizer {
public:
  explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
  void normalize(Piece &piece) const override { normalizeUnicode(piece, form_); }

private:
  NormalForm form_;
};

class SequenceNormalizer final : public Normalizer {
public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  void normalize(Piece &piece) const override {
    for (const auto &step : steps_)
      step->normalize(piece);
  }

private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

} // namespace

std::unique_ptr<Normalizer> loadNormalizer(const JsonValue &config, std::string_view what) {
  std::string type = componentType(config, what);
  std::string where = std::string(what) + " " + type;
  if (type == "Replace") {
    std::optional<JsonValue> pattern = config.find("pattern");
    std::optional<JsonValue> content = config.find("content");
    if (!pattern || !content)
      throw Error("tokenizer.json: " + where + " needs \"pattern\" and \"content\"");
    return std::make_unique<ReplaceNormalizer>(loadPattern(*pattern, where), content->asString(where + ".content"));
  }
  if (type == "Prepend") {
    std::optional<JsonValue> prefix = config.find("prepend");
    if (!prefix)
      throw Error("tokenizer.json: " + where + " needs \"prepend\"");
    return std::make_unique<PrependNormalizer>(prefix->asString(where + ".prepend"));
  }
  if (type == "NFC")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFC);
  if (type == "NFD")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFD);
  if (type == "NFKC")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFKC);
  if (type == "NFKD")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFKD);
  if (type == "Sequence") {
    std::optional<JsonValue> list = config.find("normalizers");
    if (!list)
      throw Error("tokenizer.json: " + where + " needs \"normalizers\"");
    std::vector<std::unique_ptr<Normalizer>> steps;
    list->forEachItem(where + ".normalizers", [&](JsonValue item) { steps.push_back(loadNormalizer(item, what)); });
    return std::make_unique<SequenceNormalizer>(std::move(steps));
  }
  refuseComponent(what, type, kSupported);
}

} // namespace tico::llm::detail
