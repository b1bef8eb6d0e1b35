#include "tokenizer_added_tokens.h"

#include "tokenizer_unicode.h"
#include "tokenizer_utf8.h"

#include "tico/support/error.h"

#include <algorithm>

namespace tico::llm::detail {
namespace {

// The last character of text[0, end) (valid UTF-8), or nullopt when end == 0.
std::optional<char32_t> characterBefore(std::string_view text, std::size_t end) {
  if (end == 0)
    return std::nullopt;
  std::size_t begin = end - 1;
  while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80)
    --begin;
  std::size_t length = 0;
  return decodeUtf8(text.data() + begin, length);
}

std::optional<char32_t> characterAt(std::string_view text, std::size_t begin) {
  if (begin >= text.size())
    return std::nullopt;
  std::size_t length = 0;
  return decodeUtf8(text.data() + begin, length);
}

// Start of the whitespace run that ends text[0, end).
std::size_t whitespaceRunStart(std::string_view text, std::size_t end) {
  std::size_t begin = end;
  while (begin > 0) {
    std::size_t previous = begin - 1;
    while (previous > 0 && (static_cast<unsigned char>(text[previous]) & 0xC0) == 0x80)
      --previous;
    std::size_t length = 0;
    if (!isWhiteSpace(decodeUtf8(text.data() + previous, length)))
      break;
    begin = previous;
  }
  return begin;
}

// End of the whitespace run starting at `begin`.
std::size_t whitespaceRunEnd(std::string_view text, std::size_t begin) {
  std::size_t end = begin;
  while (end < text.size()) {
    std::size_t length = 0;
    if (!isWhiteSpace(decodeUtf8(text.data() + end, length)))
      break;
    end += length;
  }
  return end;
}

bool boolField(const JsonValue &token, std::string_view key, bool fallback) {
  std::optional<JsonValue> value = token.findNonNull(key);
  return value ? value->asBool("added_tokens." + std::string(key)) : fallback;
}

} // namespace

void TokenTrie::insert(std::string_view text, std::uint32_t value) {
  if (text.empty())
    return;
  std::uint32_t node = 0;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    std::uint32_t next = child(node, byte);
    if (next == 0) {
      next = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
      auto &children = nodes_[node].children;
      auto at = std::lower_bound(children.begin(), children.end(), std::make_pair(byte, std::uint32_t{0}));
      children.insert(at, {byte, next});
    }
    node = next;
  }
  // The first registration of a string wins, like the automaton built from unique patterns.
  if (nodes_[node].value < 0)
    nodes_[node].value = value;
  first_byte_[static_cast<unsigned char>(text[0])] = true;
}

std::uint32_t TokenTrie::child(std::uint32_t node, unsigned char byte) const {
  const auto &children = nodes_[node].children;
  auto at = std::lower_bound(children.begin(), children.end(), std::make_pair(byte, std::uint32_t{0}));
  return at != children.end() && at->first == byte ? at->second : 0;
}

std::vector<TokenTrie::Match> TokenTrie::findAll(std::string_view text) const {
  std::vector<Match> matches;
  if (empty())
    return matches;
  std::size_t at = 0;
  while (at < text.size()) {
    if (!first_byte_[static_cast<unsigned char>(text[at])]) {
      ++at;
      continue;
    }
    std::uint32_t node = 0;
    std::size_t best_end = 0;
    std::int64_t best_value = -1;
    for (std::size_t i = at; i < text.size(); ++i) {
      node = child(node, static_cast<unsigned char>(text[i]));
      if (node == 0)
        break;
      if (nodes_[node].value >= 0) {
        best_end = i + 1;
        best_value = nodes_[node].value;
      }
    }
    if (best_value < 0) {
      ++at;
      continue;
    }
    matches.push_back({at, best_end, static_cast<std::uint32_t>(best_value)});
    at = best_end;
  }
  return matches;
}

void AddedVocabulary::load(const JsonValue &list, const Vocabulary &model, const Normalizer *normalizer) {
  // New ids start after the model vocabulary (its number of distinct tokens, as the library).
  auto next_id = static_cast<TokenId>(model.size());
  list.forEachItem("added_tokens", [&](JsonValue item) {
    AddedToken token;
    std::optional<JsonValue> content = item.find("content");
    if (!content)
      throw Error("tokenizer.json: an added token has no \"content\"");
    token.content = content->asString("added_tokens.content");
    token.single_word = boolField(item, "single_word", false);
    token.lstrip = boolField(item, "lstrip", false);
    token.rstrip = boolField(item, "rstrip", false);
    token.normalized = boolField(item, "normalized", true);
    token.special = boolField(item, "special", false);
    if (token.content.empty())
      return;
    auto existing = index_of_content_.find(token.content);
    if (existing != index_of_content_.end()) {
      const AddedToken &old = tokens_[existing->second];
      if (old.single_word == token.single_word && old.lstrip == token.lstrip && old.rstrip == token.rstrip &&
          old.normalized == token.normalized && old.special == token.special)
        return;
      token.id = old.id;
    } else if (std::optional<TokenId> id = model.find(token.content)) {
      token.id = *id;
    } else {
      token.id = next_id++;
    }
    token.decoded = token.content;
    if (token.normalized && normalizer) {
      Piece piece = Piece::fromOriginal(token.content, 0);
      normalizer->normalize(piece);
      token.decoded = piece.text;
    }
    if (token.special)
      special_contents_.insert(token.content);
    auto by_id = index_of_id_.find(token.id);
    std::size_t index;
    if (by_id != index_of_id_.end()) {
      index = by_id->second;
      tokens_[index] = std::move(token);
    } else {
      index = tokens_.size();
      index_of_id_[token.id] = index;
      tokens_.push_back(std::move(token));
    }
    index_of_content_[tokens_[index].content] = index;
  });
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken &token = tokens_[i];
    // Only the current owner of a content string is matched.
    if (index_of_content_.at(token.content) != i)
      continue;
    if (token.normalized)
      normalized_trie_.insert(token.decoded, static_cast<std::uint32_t>(i));
    else
      raw_trie_.insert(token.content, static_cast<std::uint32_t>(i));
  }
}

std::optional<TokenId> AddedVocabulary::idOf(std::string_view content) const {
  auto it = index_of_content_.find(std::string(content));
  if (it == index_of_content_.end())
    return std::nullopt;
  return tokens_[it->second].id;
}

const AddedToken *AddedVocabulary::tokenOf(TokenId id) const {
  auto it = index_of_id_.find(id);
  return it == index_of_id_.end() ? nullptr : &tokens_[it->second];
}

void AddedVocabulary::split(std::vector<Piece> &pieces, const TokenTrie &trie) const {
  std::vector<Piece> out;
  out.reserve(pieces.size());
  for (Piece &piece : pieces) {
    if (piece.token >= 0 || trie.empty()) {
      if (!piece.text.empty())
        out.push_back(std::move(piece));
      continue;
    }
    const std::string &text = piece.text;
    // The library's AddedVocabulary::find_matches.
    std::size_t start_offset = 0;
    auto emit = [&](std::size_t begin, std::size_t end, TokenId token) {
      if (begin >= end)
        return; // empty pieces are dropped
      Piece part = piece.slice(begin, end);
      part.token = token;
      out.push_back(std::move(part));
    };
    for (const TokenTrie::Match &match : trie.findAll(text)) {
      std::size_t start = match.begin;
      std::size_t stop = match.end;
      const AddedToken &token = tokens_[match.value];
      if (token.single_word) {
        std::optional<char32_t> before = characterBefore(text, start);
        std::optional<char32_t> after = characterAt(text, stop);
        bool start_space = !before || !isWordCharacter(*before);
        bool stop_space = !after || !isWordCharacter(*after);
        if (!start_space || !stop_space)
          continue;
      }
      if (token.lstrip)
        start = std::max(whitespaceRunStart(text, start), start_offset);
      if (token.rstrip)
        stop = whitespaceRunEnd(text, stop);
      if (start_offset < start)
        emit(start_offset, start, -1);
      emit(start, stop, token.id);
      start_offset = stop;
    }
    if (start_offset < text.size())
      emit(start_offset, text.size(), -1);
  }
  pieces = std::move(out);
}

std::vector<Piece> AddedVocabulary::extractAndNormalize(std::string_view text, const Normalizer *normalizer) const {
  std::vector<Piece> pieces;
  pieces.push_back(Piece::fromOriginal(text, 0));
  split(pieces, raw_trie_);
  for (Piece &piece : pieces)
    if (piece.token < 0 && normalizer)
      normalizer->normalize(piece);
  split(pieces, normalized_trie_);
  return pieces;
}

} // namespace tico::llm::detail
