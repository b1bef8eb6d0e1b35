// The SDK node Builder: rule-typed and explicitly typed nodes, naming, insertion point,
// constants, and layout ops folded into views of constants.
#include "pt2/torch_op_table.h"
#include "rewrite_test_support.h"

#include "tico/rewrite/builder.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace tico;
using namespace tico::rewrite;
using namespace tico::rewrite_test;

TEST(RewriteBuilder, TypesNewNodesWithTheRegisteredRules) {
  auto registry = unaryRuleRegistry();
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  Value *x = input(g, "x", {2, Dim::symbolic("s0", 4)}, DType::Int32);
  Builder b(g, *registry, nullptr, "conv1");
  Value *y = b.make("aten::neg.default", {A(x)});
  EXPECT_EQ(y->dtype(), DType::Int32);
  EXPECT_EQ(y->shape(), x->shape());
  EXPECT_EQ(y->producer()->name(), "conv1_neg");
  EXPECT_EQ(y->producer()->op(), OpKey("aten", "neg", "default"));
}

TEST(RewriteBuilder, AnOpWithoutARuleIsAnErrorAndLeavesTheGraphAsItWas) {
  auto registry = unaryRuleRegistry();
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  Value *x = input(g, "x", {2});
  Builder b(g, *registry, nullptr, "p");
  try {
    b.make("aten::sigmoid.default", {A(x)});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "cannot type a new aten::sigmoid.default node: no type rule for aten::sigmoid.default");
  }
  EXPECT_EQ(g.numNodes(), 0u);
  // Without the registry only explicitly typed creation works.
  Builder untyped(g, nullptr, "p");
  EXPECT_THROW(untyped.make("aten::neg.default", {A(x)}), Error);
  EXPECT_EQ(g.numNodes(), 0u);
}

TEST(RewriteBuilder, InsertsBeforeItsInsertionPointAndNamesWithTheSuffix) {
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  Value *x = input(g, "x", {2, 3});
  Node *relu = unary(g, "relu", x);
  Builder b(g, relu, "r");
  Value *t = b.value(OpKey("aten", "permute", "default"), {A(x), Ints({1, 0})}, DType::Float32, {3, 2}, "_t");
  EXPECT_EQ(t->producer()->name(), "r_t");
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"permute", "relu"}));
  b.setInsertionPoint(nullptr);
  Node *neg = b.node(OpKey("aten", "neg", "default"), {kw("self", A(x))},
                     {TensorTypeSpec{ValueKind::Tensor, DType::Float32, {2, 3}, {}}}, "_n");
  EXPECT_EQ(neg->name(), "r_n");
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"permute", "relu", "neg"}));
  Value *typed = b.typed("aten::abs.default", {kw("", A(x))}, DType::Float32, {2, 3});
  EXPECT_EQ(typed->producer()->name(), "r_abs");
}

TEST(RewriteBuilder, ReportsEveryNodeItCreates) {
  auto registry = unaryRuleRegistry();
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  Value *x = input(g, "x", {2});
  Builder b(g, *registry, nullptr, "p");
  std::vector<Node *> created;
  b.setOnCreate([&](Node *n) { created.push_back(n); });
  Value *a = b.make("aten::neg.default", {A(x)});
  Value *c = b.castIfNeeded(a, DType::Int32, "_int");
  EXPECT_EQ(b.castIfNeeded(c, DType::Int32, "_again"), c); // already int32: no node
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0], a->producer());
  EXPECT_EQ(created[1], c->producer());
  EXPECT_EQ(c->producer()->op().name, "_to_copy");
}

TEST(RewriteBuilder, LayoutOpsOnConstantsBecomeViews) {
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  auto data = std::make_shared<const TensorData>(
      TensorData::fromVector(DType::Float32, {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}));
  Value *w = g.addConstant("w", data);
  Builder b(g, nullptr, "conv");
  Value *t = b.permuteOrView(w, {1, 0}, "_t");
  ASSERT_TRUE(t->isConstant());
  EXPECT_EQ(g.numNodes(), 0u);
  EXPECT_EQ(t->constant()->sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(t->constant()->strides, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(t->constant()->storage.get(), data->storage.get()); // the same bytes, no copy
  Value *row = b.sliceOrView(w, 0, 1, 2, 1, "_row");
  EXPECT_EQ(row->constant()->sizes, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(row->constant()->storage_offset, 3);
  EXPECT_EQ(b.unsqueezeOrView(w, 0, "_u")->constant()->sizes, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(b.squeezeOrView(row, 0, "_s")->constant()->sizes, (std::vector<int64_t>{3}));
  // The same op on a computed value is a node with the permuted type.
  Value *x = input(g, "x", {2, Dim::symbolic("s0", 4)});
  Value *px = b.permuteOrView(x, {1, 0}, "_px");
  EXPECT_EQ(px->producer()->op(), OpKey("aten", "permute", "default"));
  EXPECT_EQ(px->shape(), (Shape{Dim::symbolic("s0", 4), 2}));
}

TEST(RewriteBuilder, ScalarConstantsInEveryDtype) {
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  Builder b(g, nullptr, "p");
  Value *h = b.scalarConstant(DType::Float16, 1.0, "_half");
  EXPECT_EQ(h->name(), "p_half");
  uint16_t bits = 0;
  std::memcpy(&bits, h->constant()->data(), 2);
  EXPECT_EQ(bits, 0x3c00);
  Value *bf = b.scalarConstant(DType::BFloat16, -2.0, "_bf");
  std::memcpy(&bits, bf->constant()->data(), 2);
  EXPECT_EQ(bits, 0xc000);
  Value *i = b.scalarConstant(DType::Int64, 7.0, "_i");
  int64_t v = 0;
  std::memcpy(&v, i->constant()->data(), 8);
  EXPECT_EQ(v, 7);
  EXPECT_THROW(b.scalarConstant(DType::Unknown, 1.0, "_u"), Error);
}

TEST(RewriteBuilder, SizeListsUseSymSizeOrMinusOne) {
  auto registry = unaryRuleRegistry();
  Graph g{&tico::pt2::torchOpSchemas()}; // real aten schemas, as in a loaded pipeline
  const Dim s0 = Dim::symbolic("s0", 4);
  const Dim s1 = Dim::symbolic("s1", 5);
  Value *x = input(g, "x", {s0, s1});
  Builder b(g, *registry, nullptr, "p");
  // One symbolic dim: -1 lets the runtime infer it.
  auto one = b.sizes({s0, 6}, {x});
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->asInts(), (std::vector<int64_t>{-1, 6}));
  // Two: each is read from the source dim with the same expression.
  auto two = b.sizes({s1, s0}, {x});
  ASSERT_TRUE(two.has_value());
  ASSERT_EQ(two->asSymInts().size(), 2u);
  EXPECT_EQ(two->asSymInts()[0].sym->symExpr(), "s1");
  EXPECT_EQ(two->asSymInts()[1].sym->symExpr(), "s0");
  // No source holds a dim with that expression.
  EXPECT_EQ(b.sizes({Dim::symbolic("s9", 2), s1}, {x}), std::nullopt);
}
