// Pre-tokenizers: cut the normalized pieces into the words the BPE model encodes one by one.
#pragma once

#include "tokenizer_json.h"
#include "tokenizer_text.h"

#include <memory>
#include <string>
#include <vector>

namespace tico::llm::detail {

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  // Splits (and may rewrite) every piece that is not an added token; empty pieces are dropped
  // (PreTokenizedString::split).
  virtual void preTokenize(std::vector<Piece> &pieces) const = 0;
};

// Builds the pre-tokenizer described by tokenizer.json's "pre_tokenizer" (not null). Supported:
// Split, Metaspace, ByteLevel, Digits, Sequence; any other type is refused.
std::unique_ptr<PreTokenizer> loadPreTokenizer(const JsonValue &config, std::string_view what = "pre_tokenizer");

// A JSON string holding exactly one character (serde's `char`), e.g. Metaspace's replacement.
char32_t loadSingleCharacter(const JsonValue &value, std::string_view what);

// Metaspace's prepend_scheme, shared with the Metaspace decoder.
enum class PrependScheme { First, Never, Always };
PrependScheme loadPrependScheme(const JsonValue &config, std::string_view what);

} // namespace tico::llm::detail
