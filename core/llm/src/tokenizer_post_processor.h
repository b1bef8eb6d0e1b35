// Post-processors: add the special tokens around an encoded sequence (BOS for most LLMs).
#pragma once

#include "tokenizer_json.h"

#include "tico/llm/tokenizer.h"

#include <memory>
#include <optional>
#include <vector>

namespace tico::llm::detail {

class PostProcessor {
public:
  virtual ~PostProcessor() = default;
  // Rewrites the ids of one sequence; with add_special_tokens=false nothing is added.
  virtual void process(std::vector<TokenId> &ids, bool add_special_tokens) const = 0;
  // The special token the template puts right before / after the sequence, if any.
  virtual std::optional<TokenId> tokenBeforeSequence() const { return std::nullopt; }
  virtual std::optional<TokenId> tokenAfterSequence() const { return std::nullopt; }
};

// Builds the post-processor described by tokenizer.json's "post_processor" (not null).
// Supported: TemplateProcessing (its "single" template), ByteLevel (changes only offsets, so
// nothing here), Sequence; any other type is refused.
std::unique_ptr<PostProcessor> loadPostProcessor(const JsonValue &config, std::string_view what = "post_processor");

} // namespace tico::llm::detail
