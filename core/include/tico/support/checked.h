// Overflow-checked sizes.
//
// Shapes, strides and offsets come from files (Circle, .pt2, .npy, textual IR); multiplying
// them naively wraps around silently and the wrapped number then sizes an allocation or bounds
// a copy. Every element count and byte size computed from untrusted numbers goes through these
// helpers. The optional forms let a caller choose its own diagnosis (a verifier rule); the
// checked* forms throw a tico::Error naming what overflowed and the shape.
#pragma once

#include "tico/support/error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico {

// a * b and a + b, or nullopt when the exact result does not fit in int64.
constexpr std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    return std::nullopt;
  return out;
}
constexpr std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    return std::nullopt;
  return out;
}

// The product of `dims`, or nullopt when a dimension is negative or the product overflows.
// A zero dimension makes the count 0 whatever the others are.
template <class Dims> std::optional<int64_t> elementCount(const Dims &dims) {
  bool empty = false;
  for (auto d : dims) {
    if (d < 0)
      return std::nullopt;
    empty = empty || d == 0;
  }
  if (empty)
    return 0;
  int64_t count = 1;
  for (auto d : dims) {
    auto next = checkedMul(count, static_cast<int64_t>(d));
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return count;
}

// elementCount(dims) * element_size, or nullopt as above or when the byte size overflows.
template <class Dims> std::optional<int64_t> byteSize(const Dims &dims, std::size_t element_size) {
  auto count = elementCount(dims);
  if (!count)
    return std::nullopt;
  return checkedMul(*count, static_cast<int64_t>(element_size));
}

namespace detail {
// "[2, 3]"; declared here so the templates below can name the shape in their message.
std::string shapeListText(const std::vector<int64_t> &dims);
[[noreturn]] void throwSizeProblem(std::string_view what, const std::vector<int64_t> &dims, std::string_view problem);
template <class Dims> std::vector<int64_t> dimsOf(const Dims &dims) {
  std::vector<int64_t> out;
  for (auto d : dims)
    out.push_back(static_cast<int64_t>(d));
  return out;
}
template <class Dims> void requireNonNegative(const Dims &dims, std::string_view what) {
  for (auto d : dims)
    if (d < 0)
      throwSizeProblem(what, dimsOf(dims), "has a negative dimension (" + std::to_string(d) + ")");
}
} // namespace detail

// elementCount(dims), or throws tico::Error("<what>: shape [..] has a negative dimension (-1)"
// or "<what>: shape [..] has an element count that overflows int64").
template <class Dims> int64_t checkedElementCount(const Dims &dims, std::string_view what) {
  detail::requireNonNegative(dims, what);
  auto count = elementCount(dims);
  if (!count)
    detail::throwSizeProblem(what, detail::dimsOf(dims), "has an element count that overflows int64");
  return *count;
}

// byteSize(dims, element_size), or throws tico::Error naming `what`, the shape and the cause.
template <class Dims> int64_t checkedByteSize(const Dims &dims, std::size_t element_size, std::string_view what) {
  const int64_t count = checkedElementCount(dims, what);
  auto bytes = checkedMul(count, static_cast<int64_t>(element_size));
  if (!bytes)
    detail::throwSizeProblem(what, detail::dimsOf(dims),
                             "has a byte size (" + std::to_string(element_size) + "-byte elements) that overflows int64");
  return *bytes;
}

} // namespace tico
