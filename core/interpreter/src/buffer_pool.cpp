#include "buffer_pool.h"

#include <map>
#include <mutex>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define TICO_BUFFER_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TICO_BUFFER_POOL 0
#endif
#endif
#ifndef TICO_BUFFER_POOL
#define TICO_BUFFER_POOL 1
#endif

namespace tico::interp {
namespace {

constexpr std::align_val_t kAlignment{64};
constexpr std::size_t kClassGranule = std::size_t{4} << 10;

void freeBuffer(std::byte *p) { ::operator delete[](p, kAlignment); }

class Pool {
public:
  std::byte *take(std::size_t size_class) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(size_class);
    if (it == free_.end() || it->second.empty())
      return nullptr;
    std::byte *p = it->second.back();
    it->second.pop_back();
    held_ -= size_class;
    return p;
  }
  // False when keeping the buffer would pass the cap: the caller frees it.
  bool give(std::byte *p, std::size_t size_class) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (held_ + size_class > kMaxPooledBytes)
      return false;
    free_[size_class].push_back(p);
    held_ += size_class;
    return true;
  }
  std::size_t held() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_;
  }

private:
  std::mutex mutex_;
  std::map<std::size_t, std::vector<std::byte *>> free_;
  std::size_t held_ = 0;
};

// Never destroyed: buffers handed to callers may be released during static destruction.
Pool &pool() {
  static Pool *instance = new Pool;
  return *instance;
}

struct ReturnToPool {
  std::size_t size_class;
  void operator()(std::byte *p) const {
    if (!pool().give(p, size_class))
      freeBuffer(p);
  }
};

} // namespace

std::shared_ptr<std::byte> acquireBuffer(std::size_t bytes) {
  if (!TICO_BUFFER_POOL || bytes < kPooledMinBytes)
    return std::shared_ptr<std::byte>(new (kAlignment) std::byte[bytes], freeBuffer);
  const std::size_t size_class = (bytes + kClassGranule - 1) / kClassGranule * kClassGranule;
  std::byte *p = pool().take(size_class);
  if (p == nullptr)
    p = new (kAlignment) std::byte[size_class];
  return std::shared_ptr<std::byte>(p, ReturnToPool{size_class});
}

std::size_t pooledBufferBytes() { return pool().held(); }

bool bufferPoolEnabled() { return TICO_BUFFER_POOL != 0; }

} // namespace tico::interp
