#include "tokenizer_vocabulary.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cstring>

namespace tico::llm::detail {
namespace {

std::size_t roundUpToPowerOfTwo(std::size_t n) {
  std::size_t capacity = 16;
  while (capacity < n)
    capacity *= 2;
  return capacity;
}

} // namespace

void Vocabulary::reserve(std::size_t entries, std::size_t bytes) {
  bytes_.reserve(bytes);
  if (slots_.size() < 2 * entries)
    rehash(roundUpToPowerOfTwo(2 * entries));
}

void Vocabulary::rehash(std::size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{});
  for (const Slot &slot : old) {
    if (slot.id < 0)
      continue;
    std::string_view token(bytes_.data() + slot.offset, slot.length);
    slots_[slotOf(token, hashOf(token))] = slot;
  }
}

std::size_t Vocabulary::slotOf(std::string_view token, std::uint64_t hash) const {
  std::size_t mask = slots_.size() - 1;
  auto tag = static_cast<std::uint32_t>(hash >> 32);
  bool fits = token.size() <= kInline;
  char padded[kInline] = {};
  if (fits && !token.empty())
    std::memcpy(padded, token.data(), token.size());
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot &slot = slots_[i];
    if (slot.id < 0)
      return i;
    if (slot.tag != tag || slot.length != token.size())
      continue;
    if (fits ? std::memcmp(slot.inline_bytes, padded, kInline) == 0
             : std::memcmp(bytes_.data() + slot.offset, token.data(), token.size()) == 0)
      return i;
  }
}

void Vocabulary::set(std::string_view token, TokenId id) {
  if (id < 0)
    throw Error("tokenizer.json: negative token id " + std::to_string(id));
  if (2 * (size_ + 1) > slots_.size())
    rehash(slots_.empty() ? 16 : slots_.size() * 2);
  std::uint64_t hash = hashOf(token);
  Slot &slot = slots_[slotOf(token, hash)];
  if (slot.id < 0) {
    if (bytes_.size() + token.size() > UINT32_MAX)
      throw Error("tokenizer.json: vocabulary larger than 4 GiB");
    slot.tag = static_cast<std::uint32_t>(hash >> 32);
    slot.offset = static_cast<std::uint32_t>(bytes_.size());
    slot.length = static_cast<std::uint32_t>(token.size());
    if (token.size() <= kInline && !token.empty())
      std::memcpy(slot.inline_bytes, token.data(), token.size());
    bytes_.append(token);
    ++size_;
  } else if (slot.id != id) {
    // The token no longer stands for its previous id.
    Location &previous = token_of_id_[static_cast<std::size_t>(slot.id)];
    if (previous.valid && previous.offset == slot.offset)
      previous.valid = false;
  }
  slot.id = id;
  if (static_cast<std::size_t>(id) >= token_of_id_.size())
    token_of_id_.resize(std::max<std::size_t>(static_cast<std::size_t>(id) + 1, token_of_id_.size() * 2));
  token_of_id_[static_cast<std::size_t>(id)] = {slot.offset, slot.length, true};
  max_id_ = std::max(max_id_, id);
}

std::optional<std::string_view> Vocabulary::tokenOf(TokenId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= token_of_id_.size())
    return std::nullopt;
  const Location &location = token_of_id_[static_cast<std::size_t>(id)];
  if (!location.valid)
    return std::nullopt;
  return std::string_view(bytes_.data() + location.offset, location.length);
}

void MergeTable::reserve(std::size_t merges) {
  if (slots_.size() < 2 * merges)
    rehash(roundUpToPowerOfTwo(2 * merges));
}

void MergeTable::rehash(std::size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  for (const Slot &slot : old) {
    if (slot.key == kEmpty)
      continue;
    std::size_t i = hash(slot.key) & mask_;
    while (slots_[i].key != kEmpty)
      i = (i + 1) & mask_;
    slots_[i] = slot;
  }
}

void MergeTable::set(TokenId left, TokenId right, Merge merge) {
  if (2 * (size_ + 1) > slots_.size())
    rehash(slots_.empty() ? 16 : slots_.size() * 2);
  std::uint64_t key = keyOf(left, right);
  std::size_t i = hash(key) & mask_;
  while (slots_[i].key != kEmpty && slots_[i].key != key)
    i = (i + 1) & mask_;
  if (slots_[i].key == kEmpty)
    ++size_;
  slots_[i].key = key;
  slots_[i].merge = merge;
}

} // namespace tico::llm::detail
