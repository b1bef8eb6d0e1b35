// The type-rule registry: registration with provenance, conflicts naming both providers,
// lookup by overload then by op name, and typing nodes through it.
#include "rewrite_test_support.h"

#include "tico/rewrite/type_rule.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;
using namespace tico::rewrite_test;

namespace {

const Provenance kStd{"tico-std", "0.1.0", "/path/a.so"};
const Provenance kAcme{"acme", "1.0", "/path/b.so"};

using Types = std::optional<std::vector<TensorTypeSpec>>;

TypeRuleSpec ruleGiving(const std::string &op, DType dtype) {
  return {op, [dtype](const Node &node, std::string *) -> Types {
            return std::vector<TensorTypeSpec>{{ValueKind::Tensor, dtype, node.input(0)->shape(), {}}};
          }};
}

} // namespace

TEST(TypeRules, RegisteredWithProvenance) {
  Registry registry;
  Registrar registrar(registry, kStd);
  registrar.addTypeRule("aten::neg", ruleGiving("", DType::Float32).rule);
  ASSERT_EQ(registry.typeRules().size(), 1u);
  const auto *entry = registry.findTypeRule(OpKey("aten", "neg", "default"));
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->from.plugin, "tico-std");
  EXPECT_EQ(entry->spec.op, "aten::neg");
}

TEST(TypeRules, DuplicateRegistrationNamesBothProviders) {
  Registry registry;
  registry.addTypeRule(ruleGiving("aten::neg", DType::Float32), kStd);
  EXPECT_EQ(errorOf([&] { registry.addTypeRule(ruleGiving("aten::neg", DType::Int32), kAcme); }),
            "type rule 'aten::neg' is registered by 'tico-std 0.1.0 (/path/a.so)' and 'acme 1.0 (/path/b.so)'");
  // A rule for one overload is another key: it takes precedence for that overload only.
  registry.addTypeRule(ruleGiving("aten::neg.out", DType::Int32), kAcme);
}

TEST(TypeRules, MergeReportsAConflictAndChangesNothing) {
  Registry registry;
  registry.addTypeRule(ruleGiving("aten::neg", DType::Float32), kStd);
  Registry staged;
  staged.addTypeRule(ruleGiving("aten::relu", DType::Float32), kAcme);
  staged.addTypeRule(ruleGiving("aten::neg", DType::Float32), kAcme);
  EXPECT_EQ(errorOf([&] { registry.merge(staged); }),
            "type rule 'aten::neg' is registered by 'tico-std 0.1.0 (/path/a.so)' and 'acme 1.0 (/path/b.so)'");
  EXPECT_EQ(registry.findTypeRule(OpKey("aten", "relu", "default")), nullptr);
  Registry clean;
  clean.addTypeRule(ruleGiving("aten::relu", DType::Float32), kAcme);
  registry.merge(clean);
  EXPECT_EQ(registry.findTypeRule(OpKey("aten", "relu", "default"))->from.plugin, "acme");
}

TEST(TypeRules, RejectsKeysThatAreNotOpNamesAndMissingFunctions) {
  Registry registry;
  EXPECT_EQ(errorOf([&] { registry.addTypeRule(ruleGiving("neg", DType::Float32), kStd); }),
            "type rule key 'neg' (from 'tico-std 0.1.0 (/path/a.so)') is not an op name: expected 'ns::name' or "
            "'ns::name.overload'");
  EXPECT_THROW(registry.addTypeRule(ruleGiving("aten::", DType::Float32), kStd), Error);
  EXPECT_THROW(registry.addTypeRule(ruleGiving("aten::neg.", DType::Float32), kStd), Error);
  EXPECT_EQ(errorOf([&] { registry.addTypeRule({"aten::neg", nullptr}, kStd); }),
            "type rule of 'aten::neg' (from 'tico-std 0.1.0 (/path/a.so)') has no function");
}

TEST(TypeRules, ExactOverloadBeforeOpName) {
  Registry registry;
  registry.addTypeRule(ruleGiving("aten::neg", DType::Float32), kStd);
  registry.addTypeRule(ruleGiving("aten::neg.out", DType::Int32), kAcme);
  EXPECT_EQ(registry.findTypeRule(OpKey("aten", "neg", "out"))->spec.op, "aten::neg.out");
  EXPECT_EQ(registry.findTypeRule(OpKey("aten", "neg", "default"))->spec.op, "aten::neg");
  EXPECT_EQ(registry.findTypeRule(OpKey("aten", "relu", "default")), nullptr);
}

TEST(TypeRules, InferAndApplyThroughTheRegistry) {
  Registry registry;
  registry.addTypeRule(ruleGiving("aten::neg", DType::Int32), kStd);
  Graph g;
  Value *x = input(g, "x", {2, 3});
  Node *neg = unary(g, "neg", x);
  neg->output()->setType(DType::Unknown, {});
  std::string why;
  auto types = inferTypes(registry, *neg, &why);
  ASSERT_TRUE(types.has_value()) << why;
  EXPECT_EQ((*types)[0].dtype, DType::Int32);
  ASSERT_TRUE(applyTypes(registry, *neg, &why)) << why;
  EXPECT_EQ(neg->output()->dtype(), DType::Int32);
  EXPECT_EQ(neg->output()->shape(), (Shape{2, 3}));

  Node *relu = unary(g, "relu", x);
  EXPECT_FALSE(inferTypes(registry, *relu, &why));
  EXPECT_EQ(why, "no type rule for aten::relu.default");
}

TEST(TypeRules, ARuleRefusalOrErrorBecomesTheReason) {
  Registry registry;
  registry.addTypeRule({"aten::neg",
                        [](const Node &, std::string *why) -> Types {
                          *why = "operand has no type yet";
                          return std::nullopt;
                        }},
                       kStd);
  registry.addTypeRule({"aten::relu", [](const Node &, std::string *) -> Types { throw Error("bad dim"); }}, kStd);
  // A rule giving the wrong number of outputs is refused, not applied.
  registry.addTypeRule(
      {"aten::abs", [](const Node &, std::string *) -> Types { return std::vector<TensorTypeSpec>(2); }}, kStd);
  Graph g;
  Value *x = input(g, "x", {2});
  std::string why;
  EXPECT_FALSE(applyTypes(registry, *unary(g, "neg", x), &why));
  EXPECT_EQ(why, "operand has no type yet");
  EXPECT_FALSE(applyTypes(registry, *unary(g, "relu", x), &why));
  EXPECT_EQ(why, "bad dim");
  EXPECT_FALSE(applyTypes(registry, *unary(g, "abs", x), &why));
  EXPECT_EQ(why, "aten::abs.default has 1 outputs; the rule gives 2");
}

TEST(TypeRules, SymIntOutputsCarryTheirValueAsTheirOneDim) {
  Registry registry;
  registry.addTypeRule({"aten::sym_size",
                        [](const Node &node, std::string *) -> Types {
                          const Value *x = node.input(0);
                          TensorTypeSpec s{ValueKind::SymInt, DType::Int64, {x->shape().at(node.arg(1).asInt())}, {}};
                          return std::vector<TensorTypeSpec>{s};
                        }},
                       kStd);
  Graph g;
  Value *x = input(g, "x", {Dim::symbolic("s0", 7), 3});
  Node *size = g.createNode(OpKey("aten", "sym_size", "int"),
                            {NamedArg{"", Argument::value(x)}, NamedArg{"", Argument::integer(0)}},
                            {TensorTypeSpec{ValueKind::SymInt, DType::Int64, {}, {}}});
  std::string why;
  ASSERT_TRUE(applyTypes(registry, *size, &why)) << why;
  EXPECT_EQ(size->output()->symExpr(), "s0");
  EXPECT_EQ(size->output()->shape(), Shape{});
}
