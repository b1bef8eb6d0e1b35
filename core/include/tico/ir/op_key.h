// Operator identity: namespace, name and overload, e.g. aten::add.Tensor.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace tico {

struct OpKey {
  std::string ns;       // "aten", "prims", "circle", "_operator", ...
  std::string name;     // "add"
  std::string overload; // "Tensor"; "default" for the overload without a name

  OpKey() = default;
  OpKey(std::string ns_, std::string name_, std::string overload_ = "default")
      : ns(std::move(ns_)), name(std::move(name_)), overload(std::move(overload_)) {}

  // Accepts every spelling a user or a file may use and returns the canonical key:
  //   aten::add.Tensor   aten.add.Tensor   torch.ops.aten.add.Tensor
  //   aten::relu (overload "default")      _operator.mul     torch.sym_max     math.trunc
  // Returns nullopt for text that is not an op name.
  static std::optional<OpKey> parse(std::string_view text);
  // Like parse() but throws tico::Error naming the bad text.
  static OpKey parseOrThrow(std::string_view text);

  // Canonical text: "aten::add.Tensor", "aten::relu.default".
  std::string str() const;
  // Schema-style name without overload: "aten::add".
  std::string qualifiedName() const { return ns + "::" + name; }

  auto operator<=>(const OpKey &) const = default;
  bool operator==(const OpKey &) const = default;
};

} // namespace tico
