// Token string <-> id tables sized for large vocabularies.
//
// Gemma 3 has 262,144 tokens and 514,906 merges, each merge needing three string lookups while
// loading. Node-based std::unordered_map costs one allocation per entry and several cache misses
// per lookup; these tables keep all token bytes in one buffer and use open addressing over
// self-contained slots, which keeps loading well under a second.
#pragma once

#include "tico/llm/tokenizer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico::llm::detail {

class Vocabulary {
public:
  void reserve(std::size_t entries, std::size_t bytes);
  // Sets the id of `token`; a token seen again takes the later id (as a map built from the JSON
  // object in document order).
  void set(std::string_view token, TokenId id);
  std::optional<TokenId> find(std::string_view token) const {
    if (slots_.empty())
      return std::nullopt;
    const Slot &slot = slots_[slotOf(token, hashOf(token))];
    return slot.id >= 0 ? std::optional<TokenId>(slot.id) : std::nullopt;
  }
  // Several lookups at once: their slots are fetched from memory in parallel, which is what
  // bounds loading time (three lookups per merge).
  template <std::size_t N> void findMany(const std::string_view (&tokens)[N], std::optional<TokenId> (&ids)[N]) const {
    std::uint64_t hashes[N];
    for (std::size_t i = 0; i < N; ++i) {
      hashes[i] = hashOf(tokens[i]);
      if (!slots_.empty())
        __builtin_prefetch(&slots_[hashes[i] & (slots_.size() - 1)]);
    }
    for (std::size_t i = 0; i < N; ++i) {
      if (slots_.empty()) {
        ids[i] = std::nullopt;
        continue;
      }
      const Slot &slot = slots_[slotOf(tokens[i], hashes[i])];
      ids[i] = slot.id >= 0 ? std::optional<TokenId>(slot.id) : std::nullopt;
    }
  }
  // The token of `id`, or nullopt. When several tokens share an id, the last one set wins.
  std::optional<std::string_view> tokenOf(TokenId id) const;
  // Number of distinct tokens.
  std::size_t size() const { return size_; }
  // Largest id, or -1 when empty.
  TokenId maxId() const { return max_id_; }

private:
  // A token with 32 bits of its hash and, when short (most are), its bytes: a probe touches one
  // slot, and the token bytes in bytes_ only for long tokens whose hash bits and length agree.
  static constexpr std::size_t kInline = 16;
  struct Slot {
    std::uint32_t tag = 0;
    std::uint32_t offset = 0; // in bytes_
    std::uint32_t length = 0;
    TokenId id = -1; // -1: empty slot
    char inline_bytes[kInline] = {}; // the token zero-padded, if it fits
  };
  struct Location {
    std::uint32_t offset = 0;
    std::uint32_t length = 0;
    bool valid = false;
  };

  static std::uint64_t hashOf(std::string_view token) {
    // 64-bit FNV-1a plus a final mix, so that the low bits (slot) and the high bits (tag) both
    // depend on every byte. Tokens are short, so this beats a block hash.
    std::uint64_t hash = 0xCBF29CE484222325ull;
    for (char c : token)
      hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    hash ^= hash >> 32;
    hash *= 0xD6E8FEB86659FD93ull;
    hash ^= hash >> 32;
    return hash;
  }
  // The slot holding `token`, or the empty slot where it would go.
  std::size_t slotOf(std::string_view token, std::uint64_t hash) const;
  void rehash(std::size_t capacity);

  std::string bytes_;
  std::vector<Slot> slots_;
  std::vector<Location> token_of_id_;
  std::size_t size_ = 0;
  TokenId max_id_ = -1;
};

// (left id, right id) -> (rank, merged id), for BPE merges.
class MergeTable {
public:
  struct Merge {
    std::uint32_t rank;
    TokenId id;
  };
  void reserve(std::size_t merges);
  // A pair seen again takes the later rank (as the library's map built from the merge list).
  void set(TokenId left, TokenId right, Merge merge);
  const Merge *find(TokenId left, TokenId right) const {
    if (slots_.empty())
      return nullptr;
    std::uint64_t key = keyOf(left, right);
    for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      const Slot &slot = slots_[i];
      if (slot.key == key)
        return &slot.merge;
      if (slot.key == kEmpty)
        return nullptr;
    }
  }
  std::size_t size() const { return size_; }

private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key = kEmpty;
    Merge merge{};
  };
  static std::uint64_t keyOf(TokenId left, TokenId right) {
    return (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
  }
  static std::uint64_t hash(std::uint64_t key) {
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ull;
    return key ^ (key >> 29);
  }
  void rehash(std::size_t capacity);

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

} // namespace tico::llm::detail
