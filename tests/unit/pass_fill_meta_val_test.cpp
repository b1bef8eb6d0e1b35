// fill-meta-val on outputs without a type, which the textual IR cannot write (the lit test
// tests/lit/passes/fill-meta-val.tir covers the typed, unchanged case).
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::parse;
using test::runPass;

// Appends `op(args)` with one untyped output before the graph's first output is returned.
Node *untyped(Graph &g, const std::string &op, std::vector<NamedArg> args, const std::string &name) {
  return g.createNode(OpKey::parseOrThrow(op), std::move(args), {TensorTypeSpec{}}, nullptr, name);
}

TEST(FillMetaVal, TypesUntypedOutputsFromTheShapeRules) {
  auto g = parse(R"(graph @main {
  symbol s0 in [2, 64] hint 4
  input %x: f32[s0, 3]
  input %y: i64[3]
  return %x
})");
  Value *x = g->findValue("x");
  Value *y = g->findValue("y");
  Node *add = untyped(*g, "aten::add.Tensor", {{"", Argument::value(x)}, {"", Argument::value(y)}}, "add");
  Node *sum = untyped(*g, "aten::sum.dim_IntList",
                      {{"", Argument::value(add->output())}, {"", Argument::ints({1})}, {"", Argument::boolean(true)}},
                      "sum");
  g->setOutputValue(0, Argument::value(sum->output()));
  EXPECT_EQ(add->output()->dtype(), DType::Unknown);

  EXPECT_TRUE(runPass(*g, "fill-meta-val"));
  EXPECT_EQ(add->output()->dtype(), DType::Float32) << "int64 tensor + float32 tensor promotes to float32";
  EXPECT_EQ(add->output()->shape(), x->shape()) << "broadcast [s0, 3] with [3], symbolic dim kept";
  EXPECT_EQ(sum->output()->dtype(), DType::Float32);
  EXPECT_EQ(sum->output()->shape(), (Shape{x->shape()[0], Dim(1)}));
  EXPECT_FALSE(runPass(*g, "fill-meta-val")) << "everything typed: no change";
}

TEST(FillMetaVal, AnOutputNoRuleCanTypeIsAnErrorNamingTheNode) {
  auto g = parse(R"(graph @main {
  symbol s0 in [2, 64] hint 4
  input %x: f32[s0, 3]
  return %x
})");
  // No shape rule for this op, and the symbolic input rules out typing by evaluation.
  Node *node = untyped(*g, "aten::cumprod.default", {{"", Argument::value(g->findValue("x"))}, {"", Argument::integer(0)}},
                       "mystery");
  g->setOutputValue(0, Argument::value(node->output()));
  try {
    runPass(*g, "fill-meta-val");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("mystery"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tico
