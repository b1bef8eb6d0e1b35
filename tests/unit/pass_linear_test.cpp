// restore-linear and convert-matmul-to-linear.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::countOps;
using test::parse;
using test::runPass;

const char *kDecomposedLinear = R"(graph @main {
  input %x: f32[2, 3]
  param %w: f32[4, 3] "fc.weight" = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]>
  param %b: f32[4] "fc.bias" = dense<[1, 2, 3, 4]>
  %p: f32[3, 4] = aten::permute.default(%w, [1, 0])
  %a: f32[2, 4] = aten::addmm.default(%b, %x, %p)
  %t: f32[3, 4] = aten::t.default(%w)
  %m: f32[2, 4] = aten::mm.default(%x, %t)
  return %a, %m
})";

TEST(RestoreLinear, UndoesTheLinearDecomposition) {
  auto g = parse(kDecomposedLinear);
  EXPECT_TRUE(runPass(*g, "restore-linear"));
  EXPECT_EQ(countOps(*g, "aten::linear.default"), 2u);
  EXPECT_EQ(g->numNodes(), 2u) << "the transposes of the weight are gone";
  const Node &first = *g->nodes().front();
  EXPECT_EQ(first.input(1)->name(), "w");
  EXPECT_EQ(first.input(2)->name(), "b");
  EXPECT_TRUE(g->nodes().back()->arg(2).isNone());
  EXPECT_FALSE(runPass(*g, "restore-linear"));
}

TEST(RestoreLinear, LeavesScaledOrComputedProductsAlone) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  input %v: f32[4, 3]
  param %w: f32[4, 3] "fc.weight" = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]>
  param %b: f32[4] "fc.bias" = dense<[1, 2, 3, 4]>
  %p: f32[3, 4] = aten::permute.default(%w, [1, 0])
  %a: f32[2, 4] = aten::addmm.default(%b, %x, %p, beta=2)
  %q: f32[3, 4] = aten::permute.default(%v, [1, 0])
  %m: f32[2, 4] = aten::mm.default(%x, %q)
  return %a, %m
})");
  EXPECT_FALSE(runPass(*g, "restore-linear"));
}

TEST(ConvertMatmulToLinear, ConstantRightOperandBecomesATransposedWeightView) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  %c = const f32[3, 4] dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]>
  %m: f32[2, 4] = aten::mm.default(%x, %c)
  return %m
})");
  EXPECT_TRUE(runPass(*g, "convert-matmul-to-linear"));
  ASSERT_EQ(countOps(*g, "aten::linear.default"), 1u);
  const Value *weight = g->nodes().front()->input(1);
  ASSERT_TRUE(weight->isConstant());
  EXPECT_EQ(weight->shape(), (Shape{4, 3}));
  EXPECT_EQ(weight->constant()->storage, g->findValue("c")->constant()->storage);
  EXPECT_EQ(weight->constant()->strides, (std::vector<int64_t>{1, 4}));
}

TEST(ConvertMatmulToLinear, HonoursItsOptions) {
  const char *text = R"(graph @main {
  input %x: f32[3, 2]
  input %y: f32[1, 3, 2]
  %c = const f32[4, 3] dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]>
  %d = const f32[1, 4, 3] dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]>
  %l: f32[4, 2] = aten::mm.default(%c, %x)
  %b: f32[1, 4, 2] = aten::bmm.default(%d, %y)
  return %l, %b
})";
  auto g = parse(text);
  EXPECT_FALSE(runPass(*g, "convert-matmul-to-linear")) << "the lhs rewrites are off by default";
  EXPECT_FALSE(runPass(*g, "convert-matmul-to-linear", {{"rhs_const", false}}));

  EXPECT_TRUE(runPass(*g, "convert-matmul-to-linear", {{"lhs_const", true}}));
  EXPECT_EQ(countOps(*g, "aten::mm.default"), 0u);
  EXPECT_EQ(countOps(*g, "aten::bmm.default"), 1u);
  EXPECT_EQ(countOps(*g, "aten::permute.default"), 2u);

  EXPECT_FALSE(runPass(*g, "convert-matmul-to-linear", {{"lhs_const", true}, {"single_batch_lhs_const_bmm", false}}))
      << "each rewrite has its own switch";

  EXPECT_TRUE(runPass(*g, "convert-matmul-to-linear", {{"single_batch_lhs_const_bmm", true}}));
  EXPECT_EQ(countOps(*g, "aten::bmm.default"), 0u);
  EXPECT_EQ(countOps(*g, "aten::linear.default"), 2u);
  // The bmm's weight is d[0]: a view of d's storage, no copy.
  const auto &d_storage = g->findValue("d")->constant()->storage;
  int views_of_d = 0;
  for (const auto &node : g->nodes())
    if (node->op().name == "linear" && node->input(1)->constant()->storage == d_storage) {
      ++views_of_d;
      EXPECT_EQ(node->input(1)->constant()->sizes, (std::vector<int64_t>{4, 3}));
    }
  EXPECT_EQ(views_of_d, 1);
}

TEST(ConvertMatmulToLinear, RewritesEndToEndIntoFullyConnected) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 5, 3]
  %c = const f32[3, 4] dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]>
  %m: f32[2, 5, 4] = aten::matmul.default(%x, %c)
  return %m
})");
  EXPECT_TRUE(runPass(*g, "convert-matmul-to-linear"));
  CircleModel m = test::lower(*g);
  EXPECT_EQ(test::opNames(m), (std::vector<std::string>{"FULLY_CONNECTED"}));
  const CircleOperator &fc = m.subgraphs[0].operators[0];
  EXPECT_EQ(test::constantValues<float>(m, fc.inputs[1]),
            (std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

} // namespace
} // namespace tico
