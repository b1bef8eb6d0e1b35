#include "residency.h"

namespace tico::incremental::runtime {

Value Residency::use(const std::string &key) {
  auto it = entries_.find(key);
  if (it == entries_.end())
    return nullptr;
  lru_.splice(lru_.end(), lru_, it->second.position);
  return it->second.value;
}

void Residency::erase(std::map<std::string, Entry>::iterator it) {
  stats_.bytes -= it->second.bytes;
  --stats_.entries;
  lru_.erase(it->second.position);
  entries_.erase(it);
}

bool Residency::put(const std::string &key, Value value, uint64_t bytes, const std::set<std::string> &pinned) {
  if (auto old = entries_.find(key); old != entries_.end())
    erase(old); // the same key holds the same value; replacing keeps the accounting simple
  if (budget_) {
    if (bytes > *budget_) {
      ++stats_.refused;
      return false;
    }
    // Check first that evicting every unpinned entry would make room, so that a refusal
    // evicts nothing.
    uint64_t pinned_bytes = 0;
    for (const auto &k : pinned)
      if (auto it = entries_.find(k); it != entries_.end())
        pinned_bytes += it->second.bytes;
    if (pinned_bytes + bytes > *budget_) {
      ++stats_.refused;
      return false;
    }
    for (auto it = lru_.begin(); stats_.bytes + bytes > *budget_;) {
      const std::string victim = *it++;
      if (pinned.count(victim))
        continue;
      stats_.evicted_bytes += entries_.at(victim).bytes;
      ++stats_.evictions;
      erase(entries_.find(victim));
    }
  }
  lru_.push_back(key);
  entries_[key] = Entry{std::move(value), bytes, std::prev(lru_.end())};
  stats_.bytes += bytes;
  ++stats_.entries;
  ++stats_.insertions;
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
  return true;
}

} // namespace tico::incremental::runtime
