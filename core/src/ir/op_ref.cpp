#include "tico/ir/op_ref.h"

#include "tico/support/error.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace tico {
namespace {

// One table for the process: plugins and the core see the same ids. Keys are never removed,
// so references into `keys` stay valid (a deque does not move its elements when it grows).
struct Interner {
  std::shared_mutex mutex;
  std::unordered_map<std::string, uint32_t> ids; // canonical text -> index
  std::deque<OpKey> keys;                         // index - 1 -> key
};

Interner &interner() {
  static Interner instance;
  return instance;
}

} // namespace

OpId OpId::of(const OpKey &key) {
  Interner &table = interner();
  std::string text = key.str();
  {
    std::shared_lock lock(table.mutex);
    auto it = table.ids.find(text);
    if (it != table.ids.end())
      return OpId(it->second);
  }
  std::unique_lock lock(table.mutex);
  auto [it, inserted] = table.ids.emplace(std::move(text), 0);
  if (inserted) {
    table.keys.push_back(key);
    it->second = static_cast<uint32_t>(table.keys.size());
  }
  return OpId(it->second);
}

const OpKey &OpId::key() const {
  if (index_ == 0)
    throw Error("OpId::key() of an empty op id");
  Interner &table = interner();
  std::shared_lock lock(table.mutex);
  return table.keys.at(index_ - 1);
}

} // namespace tico
