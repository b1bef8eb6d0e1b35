// Typed op identities.
//
// OpId is an interned handle: one small integer per distinct OpKey in the process, so passes
// compare and hash ops without touching strings. Node::opId() is interned when the node is
// created. Ids depend on the order ops were first seen, so they have no ordering operators:
// anything that reaches the output must iterate in OpKey order instead.
//
// OpRef is the type of the generated constants (tico/ops/torch_ops.h, e.g.
// tico::ops::aten::add_Tensor): the canonical key text, checked when the constant is compiled,
// plus a cache of its OpId resolved on first use. It converts to std::string_view and OpKey, so
// registration helpers that take a key text accept it unchanged.
#pragma once

#include "tico/ir/op_key.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tico {

class OpId {
public:
  constexpr OpId() = default; // no op (every interned id is non-zero)
  // The id of `key`, interning it on first sight. Thread-safe.
  static OpId of(const OpKey &key);

  bool valid() const { return index_ != 0; }
  uint32_t index() const { return index_; }
  // The key this id was interned from (valid ids only).
  const OpKey &key() const;

  friend bool operator==(OpId, OpId) = default;

private:
  friend class OpRef; // rebuilds ids from its cache
  explicit OpId(uint32_t index) : index_(index) {}
  uint32_t index_ = 0;
};

class OpRef {
public:
  // `text` must be canonical, "ns::name.overload"; anything else fails to compile.
  consteval explicit OpRef(std::string_view text) : text_(text) {
    std::size_t colons = text.find("::");
    std::size_t dot = text.find('.', colons == std::string_view::npos ? 0 : colons + 2);
    if (colons == 0 || colons == std::string_view::npos || dot == std::string_view::npos ||
        dot == colons + 2 || dot + 1 == text.size() || text.find('.', dot + 1) != std::string_view::npos)
      throw "an OpRef is written ns::name.overload";
    ns_size_ = colons;
    name_size_ = dot - colons - 2;
  }
  OpRef(const OpRef &) = delete;
  OpRef &operator=(const OpRef &) = delete;

  constexpr std::string_view str() const { return text_; }
  constexpr std::string_view ns() const { return text_.substr(0, ns_size_); }
  constexpr std::string_view name() const { return text_.substr(ns_size_ + 2, name_size_); }
  constexpr std::string_view overload() const { return text_.substr(ns_size_ + 2 + name_size_ + 1); }
  constexpr operator std::string_view() const { return text_; }
  operator std::string() const { return std::string(text_); }

  OpKey key() const { return OpKey(std::string(ns()), std::string(name()), std::string(overload())); }
  operator OpKey() const { return key(); }

  // Interned once per constant (per plugin), then one relaxed load.
  OpId id() const {
    uint32_t cached = cached_.load(std::memory_order_relaxed);
    if (cached != 0)
      return fromIndex(cached);
    OpId resolved = OpId::of(key());
    cached_.store(resolved.index(), std::memory_order_relaxed);
    return resolved;
  }

  friend bool operator==(OpId id, const OpRef &ref) { return id == ref.id(); }

private:
  static OpId fromIndex(uint32_t index) { return OpId(index); }

  std::string_view text_;
  std::size_t ns_size_ = 0;
  std::size_t name_size_ = 0;
  mutable std::atomic<uint32_t> cached_{0};
};

} // namespace tico

template <> struct std::hash<tico::OpId> {
  std::size_t operator()(tico::OpId id) const noexcept { return std::hash<uint32_t>()(id.index()); }
};
