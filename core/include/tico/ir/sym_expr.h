// Integer expressions over export-time symbols ("s0", "2*s0 + 1", "Max(s0, s1)").
//
// torch.export records symbolic sizes as sympy srepr text; the importer turns them into this
// infix form, which shape arithmetic, the text IR and runtime shape binding evaluate.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico {

class SymExpr {
public:
  // Parses infix text: integers, symbols, + - * (binary), // (floor division), %, parentheses,
  // Max(a, b, ...), Min(a, b, ...). Throws tico::Error on malformed text.
  static SymExpr parse(std::string_view text);
  // Converts sympy srepr text (Symbol('s0', integer=True, positive=True), Integer(2),
  // Add(...), Mul(...), FloorDiv(...), Mod(...), Max(...), Min(...)) to infix form.
  static std::string fromSympySrepr(std::string_view srepr);

  // Evaluates with the given symbol values; nullopt if a symbol is unbound.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &bindings) const;
  std::vector<std::string> symbols() const;
  std::string str() const; // canonical infix text
  bool isSymbol() const;   // a bare symbol name

  struct Node;

private:
  std::shared_ptr<const Node> root_;
};

} // namespace tico
