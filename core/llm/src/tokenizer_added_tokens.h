// Added tokens: tokens matched as a whole in the text before the model sees it (special tokens
// such as "<bos>" or "<start_of_turn>", and user-added words).
#pragma once

#include "tokenizer_json.h"
#include "tokenizer_normalizers.h"
#include "tokenizer_text.h"
#include "tokenizer_vocabulary.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tico::llm::detail {

struct AddedToken {
  std::string content;
  bool single_word = false; // only matches when not touching word characters
  bool lstrip = false;      // absorbs the whitespace on its left
  bool rstrip = false;      // absorbs the whitespace on its right
  bool normalized = true;   // matched in the normalized text instead of the raw text
  bool special = false;     // removed by decode(skip_special_tokens)
  TokenId id = -1;
  std::string decoded;      // the string the decoder sees: content, or its normalized form
};

// Leftmost-longest matching of many strings at once (the library uses an Aho-Corasick automaton
// in leftmost-longest mode; a byte trie walked from each candidate position finds the same
// matches for the few thousand tokens tokenizers add).
class TokenTrie {
public:
  void insert(std::string_view text, std::uint32_t value);
  bool empty() const { return nodes_.size() <= 1; }
  struct Match {
    std::size_t begin;
    std::size_t end;
    std::uint32_t value;
  };
  // Non-overlapping matches, each the longest at the leftmost position where one starts.
  std::vector<Match> findAll(std::string_view text) const;

private:
  struct Node {
    std::int64_t value = -1;
    std::vector<std::pair<unsigned char, std::uint32_t>> children; // sorted by byte
  };
  std::uint32_t child(std::uint32_t node, unsigned char byte) const;
  std::vector<Node> nodes_{Node{}};
  std::array<bool, 256> first_byte_{};
};

class AddedVocabulary {
public:
  // Registers tokenizer.json's "added_tokens" the way the library does: a token already in the
  // vocabulary (model or added) keeps that id; a new one gets the next free id after the model
  // vocabulary (not the id written in the file); normalized tokens are matched by their form
  // after `normalizer`.
  void load(const JsonValue &list, const Vocabulary &model, const Normalizer *normalizer);

  // Cuts the added tokens out of `text` (first those matched in the raw text, then, after
  // normalizing the rest piece by piece, those matched in the normalized text).
  std::vector<Piece> extractAndNormalize(std::string_view text, const Normalizer *normalizer) const;

  std::optional<TokenId> idOf(std::string_view content) const;
  const AddedToken *tokenOf(TokenId id) const;
  bool isSpecialContent(std::string_view content) const { return special_contents_.count(std::string(content)) != 0; }
  const std::vector<AddedToken> &tokens() const { return tokens_; }

private:
  void split(std::vector<Piece> &pieces, const TokenTrie &trie) const;

  std::vector<AddedToken> tokens_; // one per id
  std::unordered_map<std::string, std::size_t> index_of_content_;
  std::unordered_map<TokenId, std::size_t> index_of_id_;
  std::unordered_set<std::string> special_contents_;
  TokenTrie raw_trie_;        // values: index into tokens_
  TokenTrie normalized_trie_; // values: index into tokens_
};

} // namespace tico::llm::detail
