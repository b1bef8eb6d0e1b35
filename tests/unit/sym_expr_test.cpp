// Symbolic size expressions: sympy srepr import, infix parsing, evaluation.
#include "tico/ir/sym_expr.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;

TEST(SymExprTest, ConvertsSympySrepr) {
  EXPECT_EQ(SymExpr::fromSympySrepr("Symbol('s77', positive=True, integer=True)"), "s77");
  EXPECT_EQ(SymExpr::fromSympySrepr("Mul(Integer(2), Symbol('s0', integer=True, positive=True))"), "2*s0");
  EXPECT_EQ(SymExpr::fromSympySrepr("Add(Symbol('s0', integer=True), Integer(-1))"), "s0 + -1");
  EXPECT_EQ(SymExpr::fromSympySrepr("FloorDiv(Symbol('s0', integer=True), Integer(2))"), "s0//2");
  EXPECT_EQ(SymExpr::fromSympySrepr("Max(Integer(1), Symbol('s1', integer=True))"), "Max(1, s1)");
  EXPECT_THROW(SymExpr::fromSympySrepr("Sin(Symbol('s0'))"), Error);
  EXPECT_THROW(SymExpr::fromSympySrepr("Symbol('s0'"), Error);
}

TEST(SymExprTest, EvaluatesWithPythonSemantics) {
  std::map<std::string, int64_t> b{{"s0", 7}, {"s1", -7}};
  EXPECT_EQ(SymExpr::parse("2*s0 + 1").evaluate(b), 15);
  EXPECT_EQ(SymExpr::parse("s1//2").evaluate(b), -4); // floor, not truncation
  EXPECT_EQ(SymExpr::parse("s1%3").evaluate(b), 2);
  EXPECT_EQ(SymExpr::parse("Max(s0, 10) - Min(s0, 3)").evaluate(b), 7);
  EXPECT_EQ(SymExpr::parse("(s0 + 1)*2").evaluate(b), 16);
  EXPECT_FALSE(SymExpr::parse("s2 + 1").evaluate(b));
  EXPECT_THROW(SymExpr::parse("s0 +").evaluate(b), Error);
}

TEST(SymExprTest, PrintsCanonicallyAndListsSymbols) {
  SymExpr e = SymExpr::parse("(s0+1)*(s1)");
  EXPECT_EQ(e.str(), "(s0 + 1)*s1");
  EXPECT_EQ(SymExpr::parse(e.str()).str(), e.str());
  EXPECT_EQ(e.symbols(), (std::vector<std::string>{"s0", "s1"}));
  EXPECT_TRUE(SymExpr::parse("s0").isSymbol());
  EXPECT_FALSE(SymExpr::parse("2*s0").isSymbol());
}

// Found by the text-ir fuzzer: nesting used to recurse until the stack overflowed.
TEST(SymExprTest, RefusesNestingThatWouldExhaustTheStack) {
  const std::string parens = std::string(5000, '(') + "s0" + std::string(5000, ')');
  EXPECT_THROW(SymExpr::parse(parens), Error);
  EXPECT_THROW(SymExpr::parse(std::string(5000, '-') + "s0"), Error);
  std::string chain = "s0";
  for (int i = 0; i < 5000; ++i)
    chain += "+s0";
  EXPECT_THROW(SymExpr::parse(chain), Error);
  std::string srepr = "Symbol('s0')";
  for (int i = 0; i < 5000; ++i)
    srepr = "Add(" + srepr + ", Integer(1))";
  EXPECT_THROW(SymExpr::fromSympySrepr(srepr), Error);
  // Ordinary depth still parses.
  std::map<std::string, int64_t> b{{"s0", 3}};
  EXPECT_EQ(SymExpr::parse("((((s0 + 1))))*2").evaluate(b), 8);
}
