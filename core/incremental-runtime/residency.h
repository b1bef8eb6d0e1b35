// The retained-value cache of the incremental runtime layer (docs/incremental.md, "The runtime
// layer"): values kept between calls under their cache keys, within a byte budget, evicted least
// recently used first. Entries the running step reads or has just written are pinned so that
// storing its own results cannot evict what the next step of the same kind needs.
#pragma once

#include "tico/ir/tensor_data.h"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tico::incremental::runtime {

using Value = std::shared_ptr<const TensorData>;

struct ResidencyStats {
  uint64_t bytes = 0;         // retained now
  uint64_t peak_bytes = 0;    // the most ever retained at once
  uint64_t entries = 0;       // retained now
  uint64_t insertions = 0;
  uint64_t evictions = 0;
  uint64_t evicted_bytes = 0;
  uint64_t refused = 0;       // values not stored: larger than the budget, or pinned entries fill it
};

class Residency {
public:
  explicit Residency(std::optional<uint64_t> budget) : budget_(budget) {}

  // Whether `key` is retained (does not count as a use).
  bool contains(const std::string &key) const { return entries_.count(key) != 0; }
  // The value under `key`, marked most recently used; null when absent.
  Value use(const std::string &key);
  // Stores `value` (`bytes` long) under `key`, replacing an entry with that key, after evicting
  // least recently used entries not in `pinned` until it fits. Returns false, storing nothing,
  // when it cannot fit.
  bool put(const std::string &key, Value value, uint64_t bytes, const std::set<std::string> &pinned = {});

  const ResidencyStats &stats() const { return stats_; }
  const std::optional<uint64_t> &budget() const { return budget_; }
  // Retained keys, least recently used first.
  std::vector<std::string> keysByRecency() const { return {lru_.begin(), lru_.end()}; }

private:
  struct Entry {
    Value value;
    uint64_t bytes = 0;
    std::list<std::string>::iterator position;
  };
  void erase(std::map<std::string, Entry>::iterator it);

  std::optional<uint64_t> budget_;
  std::list<std::string> lru_; // front: least recently used
  std::map<std::string, Entry> entries_;
  ResidencyStats stats_;
};

} // namespace tico::incremental::runtime
