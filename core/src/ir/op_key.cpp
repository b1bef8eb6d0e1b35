#include "tico/ir/op_key.h"

#include "tico/support/error.h"

#include <cctype>
#include <vector>

namespace tico {
namespace {

bool isIdentifier(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return !std::isdigit(static_cast<unsigned char>(s[0]));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

} // namespace

std::optional<OpKey> OpKey::parse(std::string_view text) {
  // Registered extension ops are written "#ns:op" in .pt2 files.
  if (!text.empty() && text[0] == '#')
    text.remove_prefix(1);
  std::string_view ns, rest;
  if (auto pos = text.find("::"); pos != std::string_view::npos) {
    ns = text.substr(0, pos);
    rest = text.substr(pos + 2);
    auto parts = split(rest, '.');
    if (parts.empty() || parts.size() > 2 || !isIdentifier(ns) || !isIdentifier(parts[0]))
      return std::nullopt;
    std::string overload = parts.size() == 2 ? std::string(parts[1]) : "default";
    if (overload.empty() || (parts.size() == 2 && !isIdentifier(parts[1])))
      return std::nullopt;
    return OpKey(std::string(ns), std::string(parts[0]), overload);
  }
  if (auto pos = text.find(':'); pos != std::string_view::npos) {
    // "#ns:op" form without the '#'.
    ns = text.substr(0, pos);
    rest = text.substr(pos + 1);
    if (!isIdentifier(ns) || !isIdentifier(rest))
      return std::nullopt;
    return OpKey(std::string(ns), std::string(rest), "default");
  }
  auto parts = split(text, '.');
  for (auto p : parts)
    if (!isIdentifier(p))
      return std::nullopt;
  if (parts.size() >= 2 && parts[0] == "torch" && parts.size() >= 4 && parts[1] == "ops") {
    // torch.ops.<ns>.<op>[.<overload>]
    if (parts.size() == 4)
      return OpKey(std::string(parts[2]), std::string(parts[3]), "default");
    if (parts.size() == 5)
      return OpKey(std::string(parts[2]), std::string(parts[3]), std::string(parts[4]));
    return std::nullopt;
  }
  if (parts.size() == 3) // aten.add.Tensor
    return OpKey(std::string(parts[0]), std::string(parts[1]), std::string(parts[2]));
  if (parts.size() == 2) // _operator.mul, torch.sym_max, math.trunc, aten.relu
    return OpKey(std::string(parts[0]), std::string(parts[1]), "default");
  return std::nullopt;
}

OpKey OpKey::parseOrThrow(std::string_view text) {
  auto key = parse(text);
  if (!key)
    throw Error("'" + std::string(text) +
                "' is not an operator name (expected e.g. aten::add.Tensor, aten.add.Tensor or "
                "torch.ops.aten.add.Tensor)");
  return *key;
}

std::string OpKey::str() const { return ns + "::" + name + "." + overload; }

} // namespace tico
