#include "tico/ir/sym_expr.h"

#include "tico/support/checked.h"
#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <set>

namespace tico {

struct SymExpr::Node {
  enum class Kind { Int, Symbol, Add, Sub, Mul, FloorDiv, Mod, Neg, Max, Min } kind;
  int64_t value = 0;
  std::string name;
  std::vector<std::shared_ptr<const Node>> args;
  int depth = 1; // longest path to a leaf; bounded so printing and evaluating cannot exhaust the stack
};

namespace {

using NodePtr = std::shared_ptr<const SymExpr::Node>;
using K = SymExpr::Node::Kind;

NodePtr make(K kind, std::vector<NodePtr> args = {}, int64_t value = 0, std::string name = {}) {
  auto n = std::make_shared<SymExpr::Node>();
  n->kind = kind;
  n->args = std::move(args);
  n->value = value;
  n->name = std::move(name);
  // A long chain "a+a+a+..." parses without recursion but builds a tree as deep as it is long;
  // every later walk recurses over it. Real sizes are a few levels deep.
  constexpr int kMaxTreeDepth = 1000;
  for (const NodePtr &arg : n->args)
    n->depth = std::max(n->depth, arg->depth + 1);
  if (n->depth > kMaxTreeDepth)
    throw Error("symbolic expression nested deeper than " + std::to_string(kMaxTreeDepth) + " levels");
  return n;
}

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0)
    throw Error("symbolic expression divides by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

class InfixParser {
public:
  explicit InfixParser(std::string_view text) : text_(text) {}

  NodePtr parse() {
    NodePtr e = expr();
    skip();
    if (pos_ != text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

private:
  [[noreturn]] void fail(const std::string &why) {
    throw Error("malformed symbolic expression '" + clipped(text_) + "': " + why);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool eat(std::string_view token) {
    skip();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }
  NodePtr expr() {
    NodePtr lhs = term();
    for (;;) {
      if (eat("+"))
        lhs = make(K::Add, {lhs, term()});
      else if (eat("-"))
        lhs = make(K::Sub, {lhs, term()});
      else
        return lhs;
    }
  }
  NodePtr term() {
    NodePtr lhs = unary();
    for (;;) {
      if (eat("//"))
        lhs = make(K::FloorDiv, {lhs, unary()});
      else if (eat("*"))
        lhs = make(K::Mul, {lhs, unary()});
      else if (eat("%"))
        lhs = make(K::Mod, {lhs, unary()});
      else
        return lhs;
    }
  }
  // Every recursive descent passes through here, so one counter bounds the C++ stack: deeply
  // nested parentheses or minus signs overflowed it before (text-ir fuzzer). Real shapes nest a
  // handful of levels.
  static constexpr int kMaxNesting = 200;
  NodePtr unary() {
    if (++depth_ > kMaxNesting)
      fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
    NodePtr e = eat("-") ? make(K::Neg, {unary()}) : primary();
    --depth_;
    return e;
  }
  NodePtr primary() {
    skip();
    if (pos_ >= text_.size())
      fail("unexpected end");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr e = expr();
      if (!eat(")"))
        fail("missing ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      const std::string_view digits = text_.substr(start, pos_ - start);
      // Checked: a long literal used to overflow silently (undefined behaviour; text-ir fuzzer).
      std::optional<int64_t> v = 0;
      for (char d : digits) {
        if (v)
          v = checkedMul(*v, 10);
        if (v)
          v = checkedAdd(*v, d - '0');
      }
      if (!v)
        fail("integer " + clipped(digits) + " does not fit in 64 bits");
      return make(K::Int, {}, *v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name(text_.substr(start, pos_ - start));
      if (name == "Max" || name == "Min") {
        if (!eat("("))
          fail(name + " needs arguments");
        std::vector<NodePtr> args{expr()};
        while (eat(","))
          args.push_back(expr());
        if (!eat(")"))
          fail("missing ')'");
        return make(name == "Max" ? K::Max : K::Min, std::move(args));
      }
      return make(K::Symbol, {}, 0, name);
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

int precedence(K k) {
  switch (k) {
  case K::Add:
  case K::Sub:
    return 1;
  case K::Mul:
  case K::FloorDiv:
  case K::Mod:
    return 2;
  case K::Neg:
    return 3;
  default:
    return 4;
  }
}

std::string print(const NodePtr &n) {
  auto wrap = [&](const NodePtr &child, int min_prec) {
    std::string s = print(child);
    return precedence(child->kind) < min_prec ? "(" + s + ")" : s;
  };
  switch (n->kind) {
  case K::Int:
    return std::to_string(n->value);
  case K::Symbol:
    return n->name;
  case K::Add:
    return wrap(n->args[0], 1) + " + " + wrap(n->args[1], 2);
  case K::Sub:
    return wrap(n->args[0], 1) + " - " + wrap(n->args[1], 2);
  case K::Mul:
    return wrap(n->args[0], 2) + "*" + wrap(n->args[1], 3);
  case K::FloorDiv:
    return wrap(n->args[0], 2) + "//" + wrap(n->args[1], 3);
  case K::Mod:
    return wrap(n->args[0], 2) + "%" + wrap(n->args[1], 3);
  case K::Neg:
    return "-" + wrap(n->args[0], 3);
  case K::Max:
  case K::Min: {
    std::string s = n->kind == K::Max ? "Max(" : "Min(";
    for (std::size_t i = 0; i < n->args.size(); ++i)
      s += (i ? ", " : "") + print(n->args[i]);
    return s + ")";
  }
  }
  return "?";
}

std::optional<int64_t> eval(const NodePtr &n, const std::map<std::string, int64_t> &b) {
  switch (n->kind) {
  case K::Int:
    return n->value;
  case K::Symbol: {
    auto it = b.find(n->name);
    if (it == b.end())
      return std::nullopt;
    return it->second;
  }
  case K::Neg: {
    auto v = eval(n->args[0], b);
    if (!v || *v == std::numeric_limits<int64_t>::min())
      return std::nullopt;
    return -*v;
  }
  case K::Max:
  case K::Min: {
    std::optional<int64_t> acc;
    for (const auto &a : n->args) {
      auto v = eval(a, b);
      if (!v)
        return std::nullopt;
      acc = !acc ? *v : (n->kind == K::Max ? std::max(*acc, *v) : std::min(*acc, *v));
    }
    return acc;
  }
  default: {
    auto l = eval(n->args[0], b), r = eval(n->args[1], b);
    if (!l || !r)
      return std::nullopt;
    // A result past int64 has no value (undefined behaviour before; text-ir fuzzer).
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    switch (n->kind) {
    case K::Add:
      return checkedAdd(*l, *r);
    case K::Sub:
      return *r == kMin ? std::nullopt : checkedAdd(*l, -*r);
    case K::Mul:
      return checkedMul(*l, *r);
    case K::FloorDiv:
      return *l == kMin && *r == -1 ? std::nullopt : std::optional<int64_t>(floorDiv(*l, *r));
    case K::Mod:
      return *l == kMin && *r == -1 ? std::optional<int64_t>(0) : std::optional<int64_t>(floorMod(*l, *r));
    default:
      return std::nullopt;
    }
  }
  }
}

void collect(const NodePtr &n, std::set<std::string> &out) {
  if (n->kind == K::Symbol)
    out.insert(n->name);
  for (const auto &a : n->args)
    collect(a, out);
}

// sympy srepr: Name(args...) where args are nested calls, integers, quoted strings, or
// keyword=Value pairs (ignored).
class SreprParser {
public:
  explicit SreprParser(std::string_view text) : text_(text) {}
  NodePtr parse() {
    NodePtr n = call();
    skip();
    if (pos_ != text_.size())
      fail("trailing text");
    return n;
  }

private:
  [[noreturn]] void fail(const std::string &why) {
    throw Error("cannot read symbolic size '" + clipped(text_) + "': " + why);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  std::string ident() {
    skip();
    std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    if (start == pos_)
      fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  void expect(char c) {
    skip();
    if (pos_ >= text_.size() || text_[pos_] != c)
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool peek(char c) {
    skip();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  std::string quoted() {
    skip();
    char q = text_[pos_++];
    std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != q)
      ++pos_;
    if (pos_ >= text_.size())
      fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  int64_t integer() {
    skip();
    bool neg = false;
    if (peek('-')) {
      neg = true;
      ++pos_;
    }
    int64_t v = 0;
    std::size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      v = v * 10 + (text_[pos_++] - '0');
    if (start == pos_)
      fail("expected an integer");
    return neg ? -v : v;
  }
  // Skips ", keyword=Value" pairs that carry sympy assumptions.
  void skipKeywords() {
    while (peek(',')) {
      std::size_t save = pos_;
      ++pos_;
      skip();
      std::size_t id_start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      skip();
      if (pos_ < text_.size() && text_[pos_] == '=' && pos_ > id_start) {
        ++pos_;
        ident();
        continue;
      }
      pos_ = save;
      return;
    }
  }
  static constexpr int kMaxNesting = 200; // bounds the recursion, as in InfixParser
  NodePtr call() {
    if (++depth_ > kMaxNesting)
      fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
    NodePtr n = callBody();
    --depth_;
    return n;
  }
  NodePtr callBody() {
    std::string name = ident();
    expect('(');
    NodePtr result;
    if (name == "Symbol") {
      result = make(K::Symbol, {}, 0, quoted());
      skipKeywords();
    } else if (name == "Integer") {
      result = make(K::Int, {}, integer());
    } else {
      std::vector<NodePtr> args;
      if (!peek(')')) {
        args.push_back(call());
        while (peek(',')) {
          ++pos_;
          args.push_back(call());
        }
      }
      auto fold = [&](K k) {
        if (args.size() < 2)
          fail(name + " needs two arguments");
        NodePtr acc = args[0];
        for (std::size_t i = 1; i < args.size(); ++i)
          acc = make(k, {acc, args[i]});
        return acc;
      };
      if (name == "Add")
        result = fold(K::Add);
      else if (name == "Mul")
        result = fold(K::Mul);
      else if (name == "FloorDiv" || name == "CleanDiv")
        result = fold(K::FloorDiv);
      else if (name == "Mod" || name == "PythonMod")
        result = fold(K::Mod);
      else if (name == "Max")
        result = make(K::Max, args);
      else if (name == "Min")
        result = make(K::Min, args);
      else if (name == "Pow") {
        if (args.size() != 2 || args[1]->kind != K::Int || args[1]->value < 1 || args[1]->value > 8)
          fail("only small positive integer powers are supported");
        NodePtr acc = args[0];
        for (int64_t i = 1; i < args[1]->value; ++i)
          acc = make(K::Mul, {acc, args[0]});
        result = acc;
      } else {
        fail("the function '" + name + "' is not supported");
      }
    }
    expect(')');
    return result;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

SymExpr SymExpr::parse(std::string_view text) {
  SymExpr e;
  e.root_ = InfixParser(text).parse();
  return e;
}

std::string SymExpr::fromSympySrepr(std::string_view srepr) {
  return print(SreprParser(srepr).parse());
}

std::optional<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t> &bindings) const {
  return eval(root_, bindings);
}

std::vector<std::string> SymExpr::symbols() const {
  std::set<std::string> s;
  collect(root_, s);
  return {s.begin(), s.end()};
}

std::string SymExpr::str() const { return print(root_); }

bool SymExpr::isSymbol() const { return root_->kind == K::Symbol; }

} // namespace tico
