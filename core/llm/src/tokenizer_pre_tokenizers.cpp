#include "tokenizer_pre_tokenizers.h"

#include "tokenizer_byte_level.h"
#include "tokenizer_pattern.h"
#include "tokenizer_unicode.h"
#include "tokenizer_utf8.h"

#include "tico/support/error.h"

namespace tico::llm::detail {
namespace {

constexpr std::string_view kSupported = "Split, Metaspace, ByteLevel, Digits, Sequence";

// The regex of GPT-2's encoder, hard-wired in the library's ByteLevel pre-tokenizer.
constexpr std::string_view kGpt2Regex = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Applies `split` to each piece that is not an added token, keeping the non-empty results.
template <class F> void splitEach(std::vector<Piece> &pieces, F &&split) {
  std::vector<Piece> out;
  out.reserve(pieces.size());
  for (Piece &piece : pieces) {
    if (piece.token >= 0) {
      out.push_back(std::move(piece));
      continue;
    }
    for (Piece &part : split(std::move(piece)))
      if (!part.text.empty())
        out.push_back(std::move(part));
  }
  pieces = std::move(out);
}

std::vector<Piece> slices(const Piece &piece, const std::vector<Span> &spans) {
  std::vector<Piece> out;
  out.reserve(spans.size());
  for (const Span &span : spans)
    out.push_back(piece.slice(span.begin, span.end));
  return out;
}

class SplitPreTokenizer final : public PreTokenizer {
public:
  SplitPreTokenizer(Pattern pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}

  void preTokenize(std::vector<Piece> &pieces) const override {
    splitEach(pieces, [&](Piece piece) {
      std::vector<PatternSpan> matches = pattern_.findMatches(piece.text);
      if (invert_)
        for (PatternSpan &m : matches)
          m.is_match = !m.is_match;
      return slices(piece, applySplitBehavior(matches, behavior_));
    });
  }

private:
  Pattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class MetaspacePreTokenizer final : public PreTokenizer {
public:
  MetaspacePreTokenizer(char32_t replacement, PrependScheme scheme, bool split)
      : space_(Pattern::literal(" ", "Metaspace")), scheme_(scheme), split_(split) {
    appendUtf8(replacement_, replacement);
    replacement_pattern_ = std::make_unique<Pattern>(Pattern::literal(replacement_, "Metaspace"));
  }

  void preTokenize(std::vector<Piece> &pieces) const override {
    splitEach(pieces, [&](Piece piece) {
      piece.replaceMatches(space_.findMatches(piece.text), replacement_);
      bool starts_with_replacement = piece.text.compare(0, replacement_.size(), replacement_) == 0;
      // "first" means: only the piece that starts the original text.
      bool prepend = scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && piece.shift == 0);
      if (prepend && !starts_with_replacement)
        piece.prepend(replacement_);
      if (!split_) {
        std::vector<Piece> out;
        out.push_back(std::move(piece));
        return out;
      }
      std::vector<PatternSpan> matches = replacement_pattern_->findMatches(piece.text);
      return slices(piece, applySplitBehavior(matches, SplitBehavior::MergedWithNext));
    });
  }

private:
  Pattern space_;
  std::string replacement_;
  std::unique_ptr<Pattern> replacement_pattern_;
  PrependScheme scheme_;
  bool split_;
};

class ByteLevelPreTokenizer final : public PreTokenizer {
public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space) {
    if (use_regex)
      regex_ = std::make_unique<Pattern>(Pattern::regex(kGpt2Regex, "ByteLevel"));
  }

  void preTokenize(std::vector<Piece> &pieces) const override {
    splitEach(pieces, [&](Piece piece) {
      if (add_prefix_space_ && (piece.text.empty() || piece.text[0] != ' '))
        piece.prepend(" ");
      if (!regex_) {
        std::vector<Piece> out;
        out.push_back(std::move(piece));
        return out;
      }
      std::vector<PatternSpan> matches = regex_->findMatches(piece.text);
      return slices(piece, applySplitBehavior(matches, SplitBehavior::Isolated));
    });
    // Then every byte becomes the character that stands for it; all the characters of one source
    // character keep its alignment.
    for (Piece &piece : pieces) {
      if (piece.token >= 0)
        continue;
      std::string text;
      std::vector<std::uint32_t> origin;
      text.reserve(piece.text.size() * 2);
      origin.reserve(piece.text.size() * 2);
      for (std::size_t i = 0; i < piece.text.size(); ++i) {
        std::string_view mapped = byteLevelChar(static_cast<std::uint8_t>(piece.text[i]));
        text.append(mapped);
        origin.insert(origin.end(), mapped.size(), piece.origin[i]);
      }
      piece.text = std::move(text);
      piece.origin = std::move(origin);
    }
  }

private:
  bool add_prefix_space_;
  std::unique_ptr<Pattern> regex_;
};

// Digits: numeric characters (Rust's char::is_numeric) split off one by one, or in runs.
class DigitsPreTokenizer final : public PreTokenizer {
public:
  explicit DigitsPreTokenizer(bool individual) : individual_(individual) {}

  void preTokenize(std::vector<Piece> &pieces) const override {
    splitEach(pieces, [&](Piece piece) {
      // Each numeric character is one match, as the library's character-predicate pattern.
      std::vector<PatternSpan> matches;
      std::size_t gap = 0;
      for (std::size_t i = 0; i < piece.text.size();) {
        std::size_t length = 0;
        char32_t cp = decodeUtf8(piece.text.data() + i, length);
        if (isNumeric(cp)) {
          if (gap < i)
            matches.push_back({gap, i, false});
          matches.push_back({i, i + length, true});
          gap = i + length;
        }
        i += length;
      }
      if (gap < piece.text.size() || matches.empty())
        matches.push_back({gap, piece.text.size(), false});
      SplitBehavior behavior = individual_ ? SplitBehavior::Isolated : SplitBehavior::Contiguous;
      return slices(piece, applySplitBehavior(matches, behavior));
    });
  }

private:
  bool individual_;
};

class SequencePreTokenizer final : public PreTokenizer {
public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void preTokenize(std::vector<Piece> &pieces) const override {
    for (const auto &step : steps_)
      step->preTokenize(pieces);
  }

private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

bool optionalBool(const JsonValue &config, std::string_view key, bool fallback, const std::string &where) {
  std::optional<JsonValue> value = config.findNonNull(key);
  return value ? value->asBool(where + "." + std::string(key)) : fallback;
}

SplitBehavior loadSplitBehavior(const JsonValue &value, const std::string &where) {
  std::string name = value.asString(where + ".behavior");
  if (name == "Removed")
    return SplitBehavior::Removed;
  if (name == "Isolated")
    return SplitBehavior::Isolated;
  if (name == "MergedWithPrevious")
    return SplitBehavior::MergedWithPrevious;
  if (name == "MergedWithNext")
    return SplitBehavior::MergedWithNext;
  if (name == "Contiguous")
    return SplitBehavior::Contiguous;
  throw Error("tokenizer.json: " + where + " has an unknown behavior '" + name + "'");
}

} // namespace

char32_t loadSingleCharacter(const JsonValue &value, std::string_view what) {
  std::string text = value.asString(what);
  std::size_t length = 0;
  if (text.empty() || (decodeUtf8(text.data(), length), length != text.size()))
    throw Error("tokenizer.json: " + std::string(what) + " must be a single character, found \"" + text + "\"");
  return decodeUtf8(text.data(), length);
}

PrependScheme loadPrependScheme(const JsonValue &config, std::string_view what) {
  // As the library: prepend_scheme defaults to "always"; the legacy add_prefix_space=false
  // means "never" and contradicts any other declared scheme.
  PrependScheme scheme = PrependScheme::Always;
  if (std::optional<JsonValue> value = config.findNonNull("prepend_scheme")) {
    std::string name = value->asString(std::string(what) + ".prepend_scheme");
    if (name == "first")
      scheme = PrependScheme::First;
    else if (name == "never")
      scheme = PrependScheme::Never;
    else if (name == "always")
      scheme = PrependScheme::Always;
    else
      throw Error("tokenizer.json: " + std::string(what) + " has an unknown prepend_scheme '" + name + "'");
  }
  std::optional<JsonValue> add_prefix_space = config.findNonNull("add_prefix_space");
  if (add_prefix_space && !add_prefix_space->asBool(std::string(what) + ".add_prefix_space")) {
    if (scheme != PrependScheme::Never)
      throw Error("tokenizer.json: " + std::string(what) + ": add_prefix_space does not match declared prepend_scheme");
    scheme = PrependScheme::Never;
  }
  return scheme;
}

std::unique_ptr<PreTokenizer> loadPreTokenizer(const JsonValue &config, std::string_view what) {
  std::string type = componentType(config, what);
  std::string where = std::string(what) + " " + type;
  if (type == "Split") {
    std::optional<JsonValue> pattern = config.find("pattern");
    std::optional<JsonValue> behavior = config.find("behavior");
    if (!pattern || !behavior)
      throw Error("tokenizer.json: " + where + " needs \"pattern\" and \"behavior\"");
    return std::make_unique<SplitPreTokenizer>(loadPattern(*pattern, where), loadSplitBehavior(*behavior, where),
                                               optionalBool(config, "invert", false, where));
  }
  if (type == "Metaspace") {
    std::optional<JsonValue> replacement = config.find("replacement");
    if (!replacement)
      throw Error("tokenizer.json: " + where + " needs \"replacement\"");
    return std::make_unique<MetaspacePreTokenizer>(loadSingleCharacter(*replacement, where + ".replacement"),
                                                   loadPrependScheme(config, where),
                                                   optionalBool(config, "split", true, where));
  }
  if (type == "ByteLevel")
    return std::make_unique<ByteLevelPreTokenizer>(optionalBool(config, "add_prefix_space", true, where),
                                                   optionalBool(config, "use_regex", true, where));
  if (type == "Digits")
    return std::make_unique<DigitsPreTokenizer>(optionalBool(config, "individual_digits", false, where));
  if (type == "Sequence") {
    std::optional<JsonValue> list = config.find("pretokenizers");
    if (!list)
      throw Error("tokenizer.json: " + where + " needs \"pretokenizers\"");
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    list->forEachItem(where + ".pretokenizers", [&](JsonValue item) { steps.push_back(loadPreTokenizer(item, what)); });
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  refuseComponent(what, type, kSupported);
}

} // namespace tico::llm::detail
