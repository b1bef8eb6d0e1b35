#include "tokenizer_bpe.h"

#include "tokenizer_utf8.h"

#include "tico/support/error.h"

#include <cstdio>
#include <queue>

namespace tico::llm::detail {
namespace {

constexpr std::size_t kCacheMaxWordBytes = 256;
constexpr std::size_t kCacheCapacity = 10000;

std::optional<std::string> optionalString(const JsonObject &config, std::string_view key) {
  std::optional<JsonValue> value = config.findNonNull(key);
  if (!value)
    return std::nullopt;
  return value->asString("model." + std::string(key));
}

bool optionalBool(const JsonObject &config, std::string_view key) {
  std::optional<JsonValue> value = config.findNonNull(key);
  return value && value->asBool("model." + std::string(key));
}

// One symbol of the word being merged (the library's Symbol): a doubly linked list over the
// initial characters, where merged-away symbols get length 0.
struct Symbol {
  TokenId id;
  std::int32_t prev;
  std::int32_t next;
  std::uint32_t length;
};

struct QueuedMerge {
  std::uint32_t rank;
  std::uint32_t position;
  TokenId id;
  // Lowest rank first, then leftmost position.
  bool operator<(const QueuedMerge &other) const {
    if (rank != other.rank)
      return rank > other.rank;
    return position > other.position;
  }
};

} // namespace

// Registers merges in batches: the three vocabulary lookups of every merge in a batch are issued
// together so that their memory accesses overlap, which halves the load time of large
// vocabularies.
class BpeModel::MergeLoader {
public:
  MergeLoader(BpeModel &model, std::size_t prefix_length) : model_(model), prefix_length_(prefix_length) {}

  // Queues one element of "merges": ["left", "right"], or the legacy "left right".
  void add(const JsonValue &item) {
    std::size_t slot = count_;
    std::string_view left, right;
    if (item.type() == JsonValue::Type::Array) {
      std::size_t parts = 0;
      item.forEachItem("model.merges item", [&](JsonValue part) {
        if (parts == 0)
          left = part.stringView("model.merges item", storage_[2 * slot]);
        else if (parts == 1)
          right = part.stringView("model.merges item", storage_[2 * slot + 1]);
        ++parts;
      });
      if (parts != 2)
        throw Error("tokenizer.json: merge " + std::to_string(rank_ + slot) + " must have two parts");
    } else {
      std::string_view line = item.stringView("model.merges item", storage_[2 * slot]);
      if (line.substr(0, 8) == "#version")
        return; // skipped, as by the library
      std::size_t space = line.find(' ');
      if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
        throw Error("tokenizer.json: merge " + std::to_string(rank_ + slot + 1) +
                    " is not two tokens separated by one space");
      left = line.substr(0, space);
      right = line.substr(space + 1);
    }
    parts_[2 * slot] = left;
    parts_[2 * slot + 1] = right;
    if (++count_ == kBatch)
      flush();
  }

  void flush() {
    if (count_ == 0)
      return;
    for (std::size_t i = 2 * count_; i < 2 * kBatch; ++i)
      parts_[i] = {};
    std::optional<TokenId> part_ids[2 * kBatch];
    model_.vocab_.findMany(parts_, part_ids);
    std::string_view merged_views[kBatch];
    for (std::size_t i = 0; i < count_; ++i) {
      std::string_view left = parts_[2 * i], right = parts_[2 * i + 1];
      std::string where = "tokenizer.json: merge " + std::to_string(rank_ + i);
      if (!part_ids[2 * i])
        throw Error(where + " uses '" + std::string(left) + "', which is not in the vocabulary");
      if (!part_ids[2 * i + 1])
        throw Error(where + " uses '" + std::string(right) + "', which is not in the vocabulary");
      // With a continuing_subword_prefix the right part carries it and the merged token does not.
      if (right.size() < prefix_length_)
        throw Error(where + ": '" + std::string(right) + "' is shorter than the continuing_subword_prefix");
      merged_[i].assign(left);
      merged_[i].append(right.substr(prefix_length_));
      merged_views[i] = merged_[i];
    }
    std::optional<TokenId> merged_ids[kBatch];
    model_.vocab_.findMany(merged_views, merged_ids);
    for (std::size_t i = 0; i < count_; ++i) {
      if (!merged_ids[i])
        throw Error("tokenizer.json: merge " + std::to_string(rank_ + i) + " makes '" + merged_[i] +
                    "', which is not in the vocabulary");
      model_.merges_.set(*part_ids[2 * i], *part_ids[2 * i + 1],
                         {static_cast<std::uint32_t>(rank_ + i), *merged_ids[i]});
    }
    rank_ += count_;
    count_ = 0;
  }

private:
  static constexpr std::size_t kBatch = 16;
  BpeModel &model_;
  std::size_t prefix_length_;
  std::size_t rank_ = 0;  // rank of the first queued merge
  std::size_t count_ = 0; // queued merges
  std::string_view parts_[2 * kBatch];
  std::string storage_[2 * kBatch]; // decoded strings that had escapes
  std::string merged_[kBatch];
};

std::unique_ptr<BpeModel> BpeModel::load(const JsonValue &model_value) {
  if (model_value.type() != JsonValue::Type::Object)
    throw Error("tokenizer.json: model must be an object");
  JsonObject config(model_value, "model");
  // Files written by old versions of the library may omit the type of a BPE model.
  std::optional<JsonValue> type_value = config.find("type");
  std::string type = type_value ? type_value->asString("model.type") : config.find("merges") ? "BPE" : "";
  if (type != "BPE")
    refuseComponent("model", type.empty() ? "(none)" : type, "BPE");
  auto model = std::make_unique<BpeModel>();
  if (std::optional<JsonValue> dropout = config.findNonNull("dropout")) {
    double p = dropout->asNumber("model.dropout");
    if (p != 0.0)
      throw Error("tokenizer.json: model BPE with dropout " + std::to_string(p) +
                  " is not supported (its output is random; only null or 0 is)");
  }
  model->unk_token_ = optionalString(config, "unk_token");
  model->continuing_subword_prefix_ = optionalString(config, "continuing_subword_prefix");
  model->end_of_word_suffix_ = optionalString(config, "end_of_word_suffix");
  model->fuse_unk_ = optionalBool(config, "fuse_unk");
  model->byte_fallback_ = optionalBool(config, "byte_fallback");
  model->ignore_merges_ = optionalBool(config, "ignore_merges");

  std::optional<JsonValue> vocab = config.find("vocab");
  std::optional<JsonValue> merges = config.find("merges");
  if (!vocab || !merges)
    throw Error("tokenizer.json: model BPE needs \"vocab\" and \"merges\"");

  // Size the tables from the JSON text so that nothing is rehashed while loading.
  std::size_t vocab_count = vocab->sizeHint();
  model->vocab_.reserve(vocab_count, vocab_count * 8);
  vocab->forEachMember("model.vocab", [&](std::string_view token, JsonValue id) {
    model->vocab_.set(token, static_cast<TokenId>(id.asInteger("model.vocab id", 0, INT32_MAX)));
  });

  model->merges_.reserve(merges->sizeHint());
  MergeLoader loader(*model, model->continuing_subword_prefix_ ? model->continuing_subword_prefix_->size() : 0);
  merges->forEachItem("model.merges", [&](JsonValue item) { loader.add(item); });
  loader.flush();

  char name[8];
  for (int b = 0; b < 256; ++b) {
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    model->byte_token_[static_cast<std::size_t>(b)] = model->vocab_.find(name).value_or(-1);
  }
  for (int c = 0; c < 128; ++c) {
    char text = static_cast<char>(c);
    model->ascii_token_[static_cast<std::size_t>(c)] = model->vocab_.find(std::string_view(&text, 1)).value_or(-1);
  }
  return model;
}

std::optional<TokenId> BpeModel::charId(std::string_view character, bool first, bool last, std::string &scratch) const {
  if (!continuing_subword_prefix_ && !end_of_word_suffix_) {
    if (character.size() == 1 && static_cast<unsigned char>(character[0]) < 128) {
      TokenId id = ascii_token_[static_cast<unsigned char>(character[0])];
      return id >= 0 ? std::optional<TokenId>(id) : std::nullopt;
    }
    return vocab_.find(character);
  }
  scratch.clear();
  if (!first && continuing_subword_prefix_)
    scratch += *continuing_subword_prefix_;
  scratch += character;
  if (last && end_of_word_suffix_)
    scratch += *end_of_word_suffix_;
  return vocab_.find(scratch);
}

void BpeModel::encodeWord(std::string_view word, std::vector<TokenId> &out) const {
  if (word.empty())
    return;
  if (ignore_merges_) {
    if (std::optional<TokenId> id = vocab_.find(word)) {
      out.push_back(*id);
      return;
    }
  }
  bool cacheable = word.size() < kCacheMaxWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto hit = cache_.find(std::string(word));
    if (hit != cache_.end()) {
      out.insert(out.end(), hit->second.begin(), hit->second.end());
      return;
    }
  }
  std::size_t first = out.size();
  mergeWord(word, out);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() < kCacheCapacity)
      cache_.emplace(std::string(word),
                     std::vector<TokenId>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
  }
}

void BpeModel::mergeWord(std::string_view word, std::vector<TokenId> &out) const {
  // 1. Initial symbols: one per character, with the library's byte_fallback and unk rules
  //    (an unknown character becomes its <0xNN> byte tokens when all exist, else unk_token,
  //    consecutive unknowns fused into one with fuse_unk; without unk_token it is dropped).
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  auto add = [&](TokenId id, std::size_t length) {
    auto index = static_cast<std::int32_t>(symbols.size());
    if (!symbols.empty())
      symbols.back().next = index;
    symbols.push_back({id, index - 1, -1, static_cast<std::uint32_t>(length)});
  };
  // The unk token waiting to be added (with its byte length), kept apart so that consecutive
  // unknown characters can be fused into it.
  bool unk_pending = false;
  TokenId unk_pending_id = 0;
  std::size_t unk_pending_length = 0;
  std::string scratch;
  std::size_t i = 0;
  while (i < word.size()) {
    std::size_t length = utf8CharLength(static_cast<unsigned char>(word[i]));
    bool is_first = i == 0;
    bool is_last = i + length >= word.size();
    std::string_view character = word.substr(i, length);
    i += length;
    if (std::optional<TokenId> id = charId(character, is_first, is_last, scratch)) {
      if (unk_pending) {
        add(unk_pending_id, unk_pending_length);
        unk_pending = false;
      }
      add(*id, length);
      continue;
    }
    if (byte_fallback_) {
      // The bytes looked up are those of the string the vocabulary was searched for, prefix and
      // suffix included.
      bool decorated = continuing_subword_prefix_ || end_of_word_suffix_;
      std::string_view searched = decorated ? std::string_view(scratch) : character;
      bool all_present = true;
      for (char byte : searched)
        all_present = all_present && byte_token_[static_cast<unsigned char>(byte)] >= 0;
      if (all_present) {
        // The library adds these before a pending unk token is flushed; keep that order.
        for (char byte : searched)
          add(byte_token_[static_cast<unsigned char>(byte)], 1);
        continue;
      }
    }
    if (unk_token_) {
      std::optional<TokenId> unk_id = vocab_.find(*unk_token_);
      if (!unk_id)
        throw Error("tokenizer: unk_token '" + *unk_token_ + "' is not in the vocabulary");
      if (unk_pending && fuse_unk_) {
        unk_pending_length += length;
      } else {
        if (unk_pending)
          add(unk_pending_id, unk_pending_length);
        unk_pending = true;
        unk_pending_id = *unk_id;
        unk_pending_length = length;
      }
    }
  }
  if (unk_pending)
    add(unk_pending_id, unk_pending_length);

  // 2. Apply merges lowest rank first (leftmost among equal ranks) with a priority queue. Queue
  //    entries can go stale when a neighbour merges first; an entry is applied only if the pair
  //    now at its position still merges into the same token, which is the library's test.
  std::vector<QueuedMerge> heap_storage;
  heap_storage.reserve(symbols.size());
  std::priority_queue<QueuedMerge> queue(std::less<QueuedMerge>(), std::move(heap_storage));
  for (std::size_t s = 0; s + 1 < symbols.size(); ++s)
    if (const MergeTable::Merge *m = merges_.find(symbols[s].id, symbols[s + 1].id))
      queue.push({m->rank, static_cast<std::uint32_t>(s), m->id});
  while (!queue.empty()) {
    QueuedMerge top = queue.top();
    queue.pop();
    Symbol &left = symbols[top.position];
    if (left.length == 0 || left.next == -1)
      continue;
    auto right_index = static_cast<std::size_t>(left.next);
    Symbol right = symbols[right_index];
    const MergeTable::Merge *current = merges_.find(left.id, right.id);
    if (!current || current->id != top.id)
      continue;
    left.id = top.id;
    left.length += right.length;
    left.next = right.next;
    symbols[right_index].length = 0;
    if (right.next >= 0)
      symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.position);
    if (left.prev >= 0) {
      const Symbol &before = symbols[static_cast<std::size_t>(left.prev)];
      if (const MergeTable::Merge *m = merges_.find(before.id, left.id))
        queue.push({m->rank, static_cast<std::uint32_t>(left.prev), m->id});
    }
    if (left.next >= 0) {
      const Symbol &after = symbols[static_cast<std::size_t>(left.next)];
      if (const MergeTable::Merge *m = merges_.find(left.id, after.id))
        queue.push({m->rank, top.position, m->id});
    }
  }
  for (const Symbol &symbol : symbols)
    if (symbol.length != 0)
      out.push_back(symbol.id);
}

} // namespace tico::llm::detail

