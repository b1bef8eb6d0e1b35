// Graph IR: node creation with schema defaults, use lists, rewriting, verification, clone.
#include "pt2/torch_op_table.h"
#include "tico/ir/graph.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;

namespace {

Value *input(Graph &g, const std::string &name, Shape shape, DType dtype = DType::Float32) {
  return g.addInput(InputKind::User, name, dtype, std::move(shape));
}

std::shared_ptr<const TensorData> floats(std::vector<int64_t> sizes, std::vector<float> values) {
  return std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, std::move(sizes), values));
}

} // namespace

TEST(Graph, CreateNodeFillsSchemaDefaultsInOrder) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2, 3});
  Value *y = input(g, "y", {2, 3});
  Node *add = g.createNode(OpKey("aten", "add", "Tensor"), {Argument::value(x), Argument::value(y)}, DType::Float32,
                           {2, 3});
  ASSERT_NE(add->schema(), nullptr);
  ASSERT_EQ(add->numArgs(), 3u);
  EXPECT_EQ(add->args()[0].name, "self");
  EXPECT_EQ(add->args()[1].name, "other");
  EXPECT_EQ(add->args()[2].name, "alpha");
  EXPECT_EQ(add->arg("alpha").asInt(), 1);
  EXPECT_EQ(add->input(0), x);
  EXPECT_EQ(x->users().size(), 1u);
  EXPECT_EQ(add->output()->producer(), add);
  EXPECT_EQ(add->output()->name(), "add");
}

TEST(Graph, NamedArgumentsAndFixedLengthListsAreNormalised) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {1, 3, 8, 8});
  Value *w = input(g, "w", {4, 3, 3, 3});
  // stride=2 broadcasts to the schema's SymInt[2]; padding given by name.
  Node *conv = g.createNode(OpKey("aten", "conv2d", "default"),
                            {NamedArg{"", Argument::value(x)}, NamedArg{"", Argument::value(w)},
                             NamedArg{"padding", Argument::ints({1})}, NamedArg{"stride", Argument::integer(2)}},
                            {TensorTypeSpec{ValueKind::Tensor, DType::Float32, {1, 4, 4, 4}}});
  EXPECT_TRUE(conv->arg("bias").isNone());
  EXPECT_EQ(conv->arg("stride").asInts(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv->arg("padding").asInts(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->arg("dilation").asInts(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->arg("groups").asInt(), 1);
}

TEST(Graph, CreateNodeRejectsBadArguments) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  auto relu = OpKey("aten", "relu", "default");
  EXPECT_THROW(g.createNode(relu, {}, DType::Float32, {2}), Error); // missing 'self'
  try {
    g.createNode(relu, {NamedArg{"slef", Argument::value(x)}}, {TensorTypeSpec{ValueKind::Tensor, DType::Float32, {2}}});
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("has no argument 'slef'"), std::string::npos) << e.what();
  }
  try {
    g.createNode(relu, {Argument::string("x")}, DType::Float32, {2});
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot be a string"), std::string::npos) << e.what();
  }
}

TEST(Graph, UnknownOpsKeepTheirArguments) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  Node *n = g.createNode(OpKey("acme", "tile", "default"),
                         {NamedArg{"", Argument::value(x)}, NamedArg{"size", Argument::integer(64)}},
                         {TensorTypeSpec{ValueKind::Tensor, DType::Float32, {2}}});
  EXPECT_EQ(n->schema(), nullptr);
  EXPECT_EQ(n->args()[0].name, "arg0");
  EXPECT_EQ(n->arg("size").asInt(), 64);
}

TEST(Graph, ReplaceAllUsesUpdatesNodesAndOutputs) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  Node *r = g.createNode(OpKey("aten", "relu", "default"), {Argument::value(x)}, DType::Float32, {2});
  Node *m = g.createNode(OpKey("aten", "mul", "Tensor"), {Argument::value(r->output()), Argument::value(r->output())},
                         DType::Float32, {2});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(r->output()), ""});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(m->output()), ""});
  EXPECT_EQ(r->output()->users().size(), 2u); // one per argument slot
  g.replaceAllUsesWith(r->output(), x);
  EXPECT_FALSE(r->output()->hasUsers());
  EXPECT_EQ(x->users().size(), 3u);
  EXPECT_EQ(m->input(0), x);
  EXPECT_EQ(m->input(1), x);
  EXPECT_EQ(g.outputs()[0].value.asValue(), x);
  EXPECT_EQ(g.removeDeadNodes(), 1u);
  EXPECT_EQ(g.numNodes(), 1u);
  EXPECT_EQ(g.findValue("relu"), nullptr);
  g.verify();
}

TEST(Graph, EraseNodeRefusesUsedOutputs) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  Node *r = g.createNode(OpKey("aten", "relu", "default"), {Argument::value(x)}, DType::Float32, {2});
  g.createNode(OpKey("aten", "neg", "default"), {Argument::value(r->output())}, DType::Float32, {2});
  EXPECT_THROW(g.eraseNode(r), Error);
}

TEST(Graph, SetArgKeepsUseListsInSync) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  Value *y = input(g, "y", {2});
  Node *n = g.createNode(OpKey("aten", "add", "Tensor"), {Argument::value(x), Argument::value(x)}, DType::Float32, {2});
  n->setArg("other", Argument::value(y));
  EXPECT_EQ(x->users().size(), 1u);
  EXPECT_EQ(y->users().size(), 1u);
  EXPECT_THROW(n->setArg("other", Argument::string("no")), Error);
  g.verify();
}

TEST(Graph, InsertBeforeAndNamesStayUnique) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  Node *a = g.createNode(OpKey("aten", "relu", "default"), {Argument::value(x)}, DType::Float32, {2});
  Node *b = g.createNode(OpKey("aten", "relu", "default"), {Argument::value(x)}, DType::Float32, {2}, a);
  EXPECT_EQ(g.nodes().front().get(), b);
  EXPECT_NE(a->output()->name(), b->output()->name());
  EXPECT_NE(a->name(), b->name());
  EXPECT_EQ(g.findNode(b->name()), b);
}

TEST(Graph, VerifyReportsEveryProblem) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *w = g.addInput(InputKind::Parameter, "w", DType::Float32, {2}, "fc.weight", nullptr);
  (void)w;
  try {
    g.verify();
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("parameter/buffer/constant without data"), std::string::npos) << e.what();
  }
}

TEST(Graph, CloneIsDeepAndEqualInStructure) {
  Graph g{&tico::pt2::torchOpSchemas()};
  g.symbols()["s0"] = SymbolRange{1, 64};
  Value *x = input(g, "x", {Dim::symbolic("s0", 2), 3});
  Value *c = g.addConstant("c", floats({3}, {1, 2, 3}));
  Node *add = g.createNode(OpKey("aten", "add", "Tensor"), {Argument::value(x), Argument::value(c)}, DType::Float32,
                           {Dim::symbolic("s0", 2), 3});
  add->meta()["stack_trace"] = "File \"m.py\", line 3, in forward";
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(add->output()), ""});
  auto copy = g.clone();
  copy->verify();
  ASSERT_EQ(copy->numNodes(), 1u);
  const Node &n = *copy->nodes().front();
  EXPECT_NE(&n, add);
  EXPECT_EQ(n.input(0)->name(), "x");
  EXPECT_EQ(n.input(0)->shape()[0].expr(), "s0");
  EXPECT_EQ(n.input(1)->constant(), c->constant()); // payloads are shared, not copied
  EXPECT_EQ(n.meta().at("stack_trace"), "File \"m.py\", line 3, in forward");
  EXPECT_EQ(copy->symbols().at("s0").max, 64);
  EXPECT_EQ(n.sourceHint(), "File \"m.py\", line 3, in forward");
}

TEST(OpKeyTest, AcceptsEverySpelling) {
  EXPECT_EQ(OpKey::parse("aten::add.Tensor"), OpKey("aten", "add", "Tensor"));
  EXPECT_EQ(OpKey::parse("aten.add.Tensor"), OpKey("aten", "add", "Tensor"));
  EXPECT_EQ(OpKey::parse("torch.ops.aten.add.Tensor"), OpKey("aten", "add", "Tensor"));
  EXPECT_EQ(OpKey::parse("torch.ops.aten.relu.default"), OpKey("aten", "relu", "default"));
  EXPECT_EQ(OpKey::parse("aten::relu"), OpKey("aten", "relu", "default"));
  EXPECT_EQ(OpKey::parse("_operator.mul"), OpKey("_operator", "mul", "default"));
  EXPECT_EQ(OpKey::parse("torch.sym_max"), OpKey("torch", "sym_max", "default"));
  EXPECT_EQ(OpKey::parse("#acme:tile"), OpKey("acme", "tile", "default"));
  EXPECT_EQ(OpKey("aten", "add", "Tensor").str(), "aten::add.Tensor");
  EXPECT_FALSE(OpKey::parse("not an op"));
  EXPECT_FALSE(OpKey::parse("aten::"));
  EXPECT_THROW(OpKey::parseOrThrow("1abc"), Error);
}

TEST(Graph, NumbersAreAcceptedInTensorSlotsAsTorchExportWritesThem) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *x = input(g, "x", {2});
  // x + 2.5 and 1.0 - x (decomposed rsub) as torch.export records them.
  Node *add = g.createNode(OpKey("aten", "add", "Tensor"), {Argument::value(x), Argument::real(2.5)}, DType::Float32, {2});
  Node *sub = g.createNode(OpKey("aten", "sub", "Tensor"), {Argument::real(1.0), Argument::value(x)}, DType::Float32, {2});
  EXPECT_EQ(add->arg("other").asDouble(), 2.5);
  EXPECT_TRUE(sub->arg("self").isFloat());
  EXPECT_EQ(x->users().size(), 2u);
  g.verify();
  EXPECT_THROW(g.createNode(OpKey("aten", "add", "Tensor"), {Argument::value(x), Argument::string("2")},
                            DType::Float32, {2}),
               Error);
}
