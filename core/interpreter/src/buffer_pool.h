// Recycling of large tensor buffers between operators and runs.
//
// Every interpreter tensor used to be a fresh aligned new[]; glibc serves large ones with mmap,
// so each run zero-filled its intermediates again through page faults (measured on a CLIP-like
// text tower: ~2,000 faults, ~8 MB, per 22 ms run). Buffers of 64 KiB and more are now kept
// when freed, by size class (rounded up to 4 KiB), and handed out again for the same class.
// The pool is process-wide (outputs handed to a caller may be freed on any thread, after the
// interpreter is gone), thread-safe, and holds at most kMaxPooledBytes; a buffer that would
// exceed that is freed. Under AddressSanitizer the pool is off, so use-after-free of a tensor
// is still reported.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

namespace tico::interp {

constexpr std::size_t kPooledMinBytes = std::size_t{64} << 10;
constexpr std::size_t kMaxPooledBytes = std::size_t{64} << 20;

// A 64-byte-aligned buffer of at least `bytes` bytes (contents unspecified); it goes back to the
// pool, or is freed, when the last owner lets go.
std::shared_ptr<std::byte> acquireBuffer(std::size_t bytes);

// Bytes held by the pool right now (tests, diagnostics).
std::size_t pooledBufferBytes();

// False in sanitizer builds, where every buffer is freed at once.
bool bufferPoolEnabled();

// Kernel scratch (im2col columns, attention projections) from the same pool: uninitialised, so
// a kernel that relies on zeros fills them itself. A std::vector here zero-filled fresh pages on
// every call, the page-fault cost the pool removed from tensor allocation.
template <class T> class ScratchArray {
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>);

public:
  ScratchArray() = default;
  explicit ScratchArray(std::size_t count)
      : owner_(acquireBuffer(std::max<std::size_t>(1, count) * sizeof(T))), count_(count) {}
  T *data() const { return reinterpret_cast<T *>(owner_.get()); }
  std::size_t size() const { return count_; }
  T *begin() const { return data(); }
  T *end() const { return data() + count_; }

private:
  std::shared_ptr<std::byte> owner_;
  std::size_t count_ = 0;
};

} // namespace tico::interp
