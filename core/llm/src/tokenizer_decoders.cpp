#include "tokenizer_decoders.h"

#include "tokenizer_byte_level.h"
#include "tokenizer_utf8.h"

#include "tico/support/error.h"

namespace tico::llm::detail {
namespace {

constexpr std::string_view kSupported =
    "Replace, ByteFallback, Fuse, Strip, Metaspace, ByteLevel, BPEDecoder, Sequence";

void loadSteps(const JsonValue &config, std::vector<DecoderStep> &steps) {
  std::string type = componentType(config, "decoder");
  std::string where = "decoder " + type;
  DecoderStep step{};
  if (type == "Sequence") {
    std::optional<JsonValue> list = config.find("decoders");
    if (!list)
      throw Error("tokenizer.json: " + where + " needs \"decoders\"");
    list->forEachItem(where + ".decoders", [&](JsonValue item) { loadSteps(item, steps); });
    return;
  }
  if (type == "Replace") {
    std::optional<JsonValue> pattern = config.find("pattern");
    std::optional<JsonValue> content = config.find("content");
    if (!pattern || !content)
      throw Error("tokenizer.json: " + where + " needs \"pattern\" and \"content\"");
    step.kind = DecoderStep::Kind::Replace;
    step.pattern = std::make_shared<const Pattern>(loadPattern(*pattern, where));
    step.text = content->asString(where + ".content");
  } else if (type == "ByteFallback") {
    step.kind = DecoderStep::Kind::ByteFallback;
  } else if (type == "Fuse") {
    step.kind = DecoderStep::Kind::Fuse;
  } else if (type == "Strip") {
    std::optional<JsonValue> content = config.find("content");
    if (!content)
      throw Error("tokenizer.json: " + where + " needs \"content\"");
    step.kind = DecoderStep::Kind::Strip;
    step.character = loadSingleCharacter(*content, where + ".content");
    std::optional<JsonValue> start = config.findNonNull("start");
    std::optional<JsonValue> stop = config.findNonNull("stop");
    step.strip_start = start ? static_cast<std::size_t>(start->asInteger(where + ".start", 0, INT32_MAX)) : 0;
    step.strip_stop = stop ? static_cast<std::size_t>(stop->asInteger(where + ".stop", 0, INT32_MAX)) : 0;
  } else if (type == "Metaspace") {
    std::optional<JsonValue> replacement = config.find("replacement");
    if (!replacement)
      throw Error("tokenizer.json: " + where + " needs \"replacement\"");
    step.kind = DecoderStep::Kind::Metaspace;
    step.character = loadSingleCharacter(*replacement, where + ".replacement");
    step.prepend_scheme = loadPrependScheme(config, where);
  } else if (type == "ByteLevel") {
    step.kind = DecoderStep::Kind::ByteLevel;
  } else if (type == "BPEDecoder") {
    step.kind = DecoderStep::Kind::BpeSuffix;
    std::optional<JsonValue> suffix = config.findNonNull("suffix");
    step.text = suffix ? suffix->asString(where + ".suffix") : "</w>";
    if (step.text.empty())
      throw Error("tokenizer.json: " + where + " has an empty suffix, which is not supported");
  } else {
    refuseComponent("decoder", type, kSupported);
  }
  steps.push_back(std::move(step));
}

std::vector<std::string> applyReplace(const DecoderStep &step, std::vector<std::string> tokens) {
  for (std::string &token : tokens) {
    std::string out;
    for (const PatternSpan &span : step.pattern->findMatches(token)) {
      if (span.is_match)
        out += step.text;
      else
        out.append(token, span.begin, span.end - span.begin);
    }
    token = std::move(out);
  }
  return tokens;
}

std::vector<std::string> applyByteFallback(std::vector<std::string> tokens) {
  std::vector<std::string> out;
  std::string bytes;
  auto flush = [&] {
    if (bytes.empty())
      return;
    if (findInvalidUtf8(bytes) == std::string_view::npos) {
      out.push_back(bytes);
    } else {
      // An invalid run becomes one U+FFFD per byte, not Rust's lossy decoding.
      for (std::size_t i = 0; i < bytes.size(); ++i)
        out.emplace_back(kReplacementCharacter);
    }
    bytes.clear();
  };
  for (std::string &token : tokens) {
    if (std::optional<unsigned char> byte = byteTokenValue(token)) {
      bytes.push_back(static_cast<char>(*byte));
      continue;
    }
    flush();
    out.push_back(std::move(token));
  }
  flush();
  return out;
}

std::vector<std::string> applyStrip(const DecoderStep &step, std::vector<std::string> tokens) {
  for (std::string &token : tokens) {
    std::vector<std::pair<std::size_t, char32_t>> chars; // (byte offset, code point)
    for (std::size_t i = 0; i < token.size();) {
      std::size_t length = 0;
      char32_t cp = decodeUtf8(token.data() + i, length);
      chars.emplace_back(i, cp);
      i += length;
    }
    std::size_t n = chars.size();
    std::size_t start_cut = 0;
    for (std::size_t i = 0; i < std::min(step.strip_start, n) && chars[i].second == step.character; ++i)
      start_cut = i + 1;
    std::size_t stop_cut = n;
    for (std::size_t i = 0; i < std::min(step.strip_stop, n) && chars[n - 1 - i].second == step.character; ++i)
      stop_cut = n - 1 - i;
    // The library panics when the two cuts cross; an empty string is the sensible reading.
    if (stop_cut <= start_cut) {
      token.clear();
      continue;
    }
    std::size_t begin = chars[start_cut].first;
    std::size_t end = stop_cut < chars.size() ? chars[stop_cut].first : token.size();
    token = token.substr(begin, end - begin);
  }
  return tokens;
}

std::vector<std::string> applyMetaspace(const DecoderStep &step, std::vector<std::string> tokens) {
  std::string replacement;
  appendUtf8(replacement, step.character);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    // In the first token every replacement character disappears (unless the scheme is "never");
    // elsewhere each one becomes a space.
    std::string_view with = (i == 0 && step.prepend_scheme != PrependScheme::Never) ? "" : " ";
    std::string out;
    const std::string &token = tokens[i];
    for (std::size_t at = 0; at < token.size();) {
      if (token.compare(at, replacement.size(), replacement) == 0) {
        out += with;
        at += replacement.size();
      } else {
        out.push_back(token[at++]);
      }
    }
    tokens[i] = std::move(out);
  }
  return tokens;
}

std::vector<std::string> applyByteLevel(std::vector<std::string> tokens) {
  std::string bytes;
  for (const std::string &token : tokens) {
    bytes += byteLevelBytes(token);
  }
  std::string text;
  appendUtf8Lossy(text, bytes);
  return {text};
}

std::vector<std::string> applyBpeSuffix(const DecoderStep &step, std::vector<std::string> tokens) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string_view with = i + 1 == tokens.size() ? "" : " ";
    std::string out;
    const std::string &token = tokens[i];
    std::size_t last = 0;
    for (std::size_t at = token.find(step.text); at != std::string::npos; at = token.find(step.text, last)) {
      out.append(token, last, at - last);
      out += with;
      last = at + step.text.size();
    }
    out.append(token, last, std::string::npos);
    tokens[i] = std::move(out);
  }
  return tokens;
}

} // namespace

// "<0xNN>" -> NN, as the library's ByteFallback reads it (u8::from_str_radix accepts "+N").
std::optional<unsigned char> byteTokenValue(std::string_view token) {
  if (token.size() != 6 || token.substr(0, 3) != "<0x" || token[5] != '>')
    return std::nullopt;
  const auto hex = hexDigitValue;
  int high = token[3] == '+' ? 0 : hex(token[3]);
  int low = hex(token[4]);
  if (high < 0 || low < 0)
    return std::nullopt;
  return static_cast<unsigned char>(high * 16 + low);
}

Decoder Decoder::load(const JsonValue *config) {
  Decoder decoder;
  if (!config || config->isNull())
    return decoder;
  decoder.present_ = true;
  loadSteps(*config, decoder.steps_);
  return decoder;
}

std::string Decoder::decode(std::vector<std::string> tokens) const {
  std::string text;
  if (!present_) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0)
        text += ' ';
      text += tokens[i];
    }
    return text;
  }
  for (const DecoderStep &step : steps_) {
    switch (step.kind) {
    case DecoderStep::Kind::Replace:
      tokens = applyReplace(step, std::move(tokens));
      break;
    case DecoderStep::Kind::ByteFallback:
      tokens = applyByteFallback(std::move(tokens));
      break;
    case DecoderStep::Kind::Fuse: {
      std::string fused;
      for (const std::string &token : tokens)
        fused += token;
      tokens = {fused};
      break;
    }
    case DecoderStep::Kind::Strip:
      tokens = applyStrip(step, std::move(tokens));
      break;
    case DecoderStep::Kind::Metaspace:
      tokens = applyMetaspace(step, std::move(tokens));
      break;
    case DecoderStep::Kind::ByteLevel:
      tokens = applyByteLevel(std::move(tokens));
      break;
    case DecoderStep::Kind::BpeSuffix:
      tokens = applyBpeSuffix(step, std::move(tokens));
      break;
    }
  }
  for (const std::string &token : tokens)
    text += token;
  return text;
}

std::unique_ptr<DecoderStream> Decoder::stream() const { return makeDecoderStream(present_, steps_); }

} // namespace tico::llm::detail
