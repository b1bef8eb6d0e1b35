// The BPE model: turns one pre-tokenized word into token ids.
#pragma once

#include "tokenizer_json.h"
#include "tokenizer_vocabulary.h"

#include <array>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tico::llm::detail {

class BpeModel {
public:
  // Reads tokenizer.json's "model" (type BPE; dropout must be null or 0).
  static std::unique_ptr<BpeModel> load(const JsonValue &model);

  // Appends the ids of `word` (a non-empty pre-tokenized piece) to `out`.
  void encodeWord(std::string_view word, std::vector<TokenId> &out) const;

  const Vocabulary &vocabulary() const { return vocab_; }

private:
  class MergeLoader;
  void mergeWord(std::string_view word, std::vector<TokenId> &out) const;
  std::optional<TokenId> charId(std::string_view character, bool first, bool last, std::string &scratch) const;

  Vocabulary vocab_;
  MergeTable merges_;
  std::optional<std::string> unk_token_;
  std::optional<std::string> continuing_subword_prefix_;
  std::optional<std::string> end_of_word_suffix_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  // Ids of the "<0xNN>" tokens byte_fallback uses, -1 where absent.
  std::array<TokenId, 256> byte_token_{};
  // Ids of the one-byte characters (the common case), -1 where absent; only used when there is
  // no continuing_subword_prefix / end_of_word_suffix.
  std::array<TokenId, 128> ascii_token_{};

  // Results for short words, as the library caches them (words under 256 bytes, at most 10,000
  // entries, never evicted). Byte-level tokenizers see the same words again and again.
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<TokenId>> cache_;
};

} // namespace tico::llm::detail
