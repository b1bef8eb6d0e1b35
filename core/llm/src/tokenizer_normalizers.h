// Normalizers: rewrite each piece of input text (outside added tokens) before pre-tokenization.
#pragma once

#include "tokenizer_json.h"
#include "tokenizer_text.h"

#include <memory>

namespace tico::llm::detail {

class Normalizer {
public:
  virtual ~Normalizer() = default;
  virtual void normalize(Piece &piece) const = 0;
};

// Builds the normalizer described by tokenizer.json's "normalizer" (not null). Supported:
// Replace, Prepend, Sequence, NFC, NFD, NFKC, NFKD; any other type is refused.
std::unique_ptr<Normalizer> loadNormalizer(const JsonValue &config, std::string_view what = "normalizer");

} // namespace tico::llm::detail
