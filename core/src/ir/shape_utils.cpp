#include "tico/ir/shape_utils.h"

#include "tico/support/checked.h"

#include "tico/ir/sym_expr.h"
#include "tico/support/error.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>

namespace tico {

std::optional<int64_t> tryNormalizeDim(int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r)
    return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

int64_t normalizeDim(int64_t dim, int64_t rank) {
  std::optional<int64_t> d = tryNormalizeDim(dim, rank);
  if (!d)
    throw Error("dimension " + std::to_string(dim) + " is out of range for a tensor of rank " + std::to_string(rank));
  return *d;
}

std::vector<int64_t> normalizeDims(const std::vector<int64_t> &dims, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (int64_t dim : dims) {
    const int64_t d = normalizeDim(dim, rank);
    if (std::find(out.begin(), out.end(), d) != out.end())
      throw Error("dimension " + std::to_string(d) + " appears more than once in the dim list");
    out.push_back(d);
  }
  return out;
}

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const Dim *x = i < rank - a.size() ? nullptr : &a[i - (rank - a.size())];
    const Dim *y = i < rank - b.size() ? nullptr : &b[i - (rank - b.size())];
    if (!x || !y) {
      out[i] = x ? *x : *y;
      continue;
    }
    if (*x == *y || (y->isStatic() && y->value() == 1)) {
      out[i] = *x;
    } else if (x->isStatic() && x->value() == 1) {
      out[i] = *y;
    } else if (x->isSymbolic() && y->isStatic()) {
      out[i] = *y; // the symbol must equal the static size for the program to be valid
    } else if (y->isSymbolic()) {
      out[i] = *x;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::vector<int64_t>> broadcastSizes(const std::vector<std::vector<int64_t>> &shapes) {
  std::size_t rank = 0;
  for (const auto &s : shapes)
    rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto &s : shapes)
    for (std::size_t p = 0; p < s.size(); ++p) {
      int64_t &d = out[rank - s.size() + p];
      if (s[p] != 1) {
        if (d != 1 && d != s[p])
          return std::nullopt;
        d = s[p];
      }
    }
  return out;
}

int64_t checkedSizeMul(int64_t a, int64_t b) {
  if (a < 0 || b < 0)
    throw Error("negative size in a product of sizes (" + std::to_string(a) + " * " + std::to_string(b) + ")");
  std::optional<int64_t> out = checkedMul(a, b);
  if (!out)
    throw Error("the product of sizes " + std::to_string(a) + " * " + std::to_string(b) + " overflows int64");
  return *out;
}

int64_t checkedProduct(const std::vector<int64_t> &sizes) {
  int64_t out = 1;
  for (int64_t s : sizes)
    out = checkedSizeMul(out, s);
  return out;
}

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
    if (isInteger(f)) {
      // SymExpr::parse has already refused literals past int64; the product is checked here.
      int64_t factor = 0;
      const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), factor);
      if (ec != std::errc() || ptr != f.data() + f.size())
        throw Error("dimension factor '" + f + "' in '" + d.expr() + "' is not a 64-bit integer");
      const std::optional<int64_t> product = checkedMul(m.coefficient, factor);
      if (!product)
        throw Error("the coefficient of dimension '" + d.expr() + "' overflows int64");
      m.coefficient = *product;
    }
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
    return Dim(checkedSizeMul(a.value(), b.value()));
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

} // namespace tico
