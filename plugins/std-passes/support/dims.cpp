#include "dims.h"

#include "tico/ir/sym_expr.h"
#include "tico/support/error.h"

#include <algorithm>
#include <map>
#include <string>

namespace tico::passes {
namespace {

// coefficient * product(factors)
struct Monomial {
  int64_t coefficient = 1;
  std::map<std::string, int> factors; // canonical factor text -> multiplicity
  int64_t hint = 1;
};

// Splits `expr` at the '*' that are at parenthesis depth 0 and not part of "//".
std::vector<std::string> topLevelFactors(const std::string &expr) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    char c = expr[i];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (depth == 0 && (c == '+' || c == '-' || c == '/' || c == '%'))
      return {expr}; // a sum or a quotient at the top level is one opaque factor
    else if (c == '*' && depth == 0) {
      parts.push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(expr.substr(start));
  return parts;
}

bool isInteger(const std::string &text) {
  std::size_t i = text.size() > 1 && text[0] == '-' ? 1 : 0;
  return i < text.size() && std::all_of(text.begin() + static_cast<std::ptrdiff_t>(i), text.end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
}

std::string trim(const std::string &s) {
  std::size_t b = s.find_first_not_of(' ');
  std::size_t e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Monomial toMonomial(const Dim &d) {
  Monomial m;
  m.hint = d.value();
  if (d.isStatic()) {
    m.coefficient = d.value();
    return m;
  }
  for (const std::string &raw : topLevelFactors(d.expr())) {
    std::string f = trim(raw);
    if (isInteger(f))
      m.coefficient *= std::stoll(f);
    else
      ++m.factors[SymExpr::parse(f).str()];
  }
  return m;
}

Dim fromMonomial(const Monomial &m) {
  if (m.factors.empty())
    return Dim(m.coefficient);
  std::string expr = m.coefficient == 1 ? "" : std::to_string(m.coefficient) + "*";
  bool first = true;
  for (const auto &[factor, count] : m.factors)
    for (int i = 0; i < count; ++i) {
      if (!first)
        expr += "*";
      // A factor that is itself a sum keeps its parentheses inside a product.
      bool compound = factor.find_first_of("+-/%") != std::string::npos;
      expr += compound ? "(" + factor + ")" : factor;
      first = false;
    }
  return Dim::symbolic(SymExpr::parse(expr).str(), m.hint);
}

} // namespace

Dim mulDims(const Dim &a, const Dim &b) {
  if (a.isStatic() && b.isStatic())
    return Dim(a.value() * b.value());
  if (a.isStatic() && a.value() == 0)
    return Dim(0);
  if (b.isStatic() && b.value() == 0)
    return Dim(0);
  Monomial x = toMonomial(a), y = toMonomial(b);
  x.coefficient *= y.coefficient;
  x.hint *= y.hint;
  for (const auto &[f, n] : y.factors)
    x.factors[f] += n;
  return fromMonomial(x);
}

Dim productOf(const Shape &dims, std::size_t begin, std::size_t end) {
  Dim acc(1);
  for (std::size_t i = begin; i < end && i < dims.size(); ++i)
    acc = mulDims(acc, dims[i]);
  return acc;
}

std::optional<Dim> divDims(const Dim &a, const Dim &b) {
  if (b.isStatic() && b.value() == 0)
    return std::nullopt;
  if (a.isStatic() && b.isStatic()) {
    if (a.value() % b.value() != 0)
      return std::nullopt;
    return Dim(a.value() / b.value());
  }
  Monomial x = toMonomial(a), y = toMonomial(b);
  if (y.coefficient == 0 || x.coefficient % y.coefficient != 0)
    return std::nullopt;
  for (const auto &[f, n] : y.factors) {
    auto it = x.factors.find(f);
    if (it == x.factors.end() || it->second < n)
      return std::nullopt;
    it->second -= n;
    if (it->second == 0)
      x.factors.erase(it);
  }
  x.coefficient /= y.coefficient;
  x.hint = y.hint != 0 ? x.hint / y.hint : x.hint;
  return fromMonomial(x);
}

bool sameNumel(const Shape &a, const Shape &b) { return productOf(a) == productOf(b); }

} // namespace tico::passes
