// fold-constant-views: view ops of constants become zero-copy constant views.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::parse;
using test::runPass;

std::vector<float> valuesOf(const TensorData &t) {
  std::vector<std::byte> bytes = t.contiguousBytes();
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

const TensorData &returned(const Graph &g, std::size_t i = 0) {
  const Value *v = g.outputs().at(i).value.asValue();
  EXPECT_TRUE(v->isConstant()) << v->name() << " was not folded";
  return *v->constant();
}

TEST(FoldConstantViews, PermuteIsAStridedViewOfTheSameStorage) {
  auto g = parse(R"(graph @main {
  param %w: f32[2, 3] "w" = dense<[0, 1, 2, 3, 4, 5]>
  %p: f32[3, 2] = aten::permute.default(%w, [1, 0])
  return %p
})");
  EXPECT_TRUE(runPass(*g, "fold-constant-views"));
  EXPECT_EQ(g->numNodes(), 0u);
  const TensorData &t = returned(*g);
  EXPECT_EQ(t.storage, g->findValue("w")->constant()->storage) << "no copy";
  EXPECT_EQ(t.sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(t.strides, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(valuesOf(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_FALSE(runPass(*g, "fold-constant-views"));
}

TEST(FoldConstantViews, ChainsOfViewsFoldStepByStep) {
  auto g = parse(R"(graph @main {
  param %w: f32[2, 3, 4] "w" = )" + test::iota(24) + R"(
  %s: f32[2, 3, 2] = aten::slice.Tensor(%w, 2, 1, 9223372036854775807, 2)
  %e: f32[3, 2] = aten::select.int(%s, 0, -1)
  %u: f32[3, 1, 2] = aten::unsqueeze.default(%e, 1)
  %t: f32[2, 1, 3] = aten::transpose.int(%u, 0, 2)
  %q: f32[2, 3] = aten::squeeze.dim(%t, 1)
  return %q
})");
  EXPECT_TRUE(runPass(*g, "fold-constant-views"));
  EXPECT_EQ(g->numNodes(), 0u);
  // w[1, :, 1::2] is [[13, 15], [17, 19], [21, 23]], transposed.
  EXPECT_EQ(valuesOf(returned(*g)), (std::vector<float>{13, 17, 21, 15, 19, 23}));
  EXPECT_EQ(returned(*g).storage, g->findValue("w")->constant()->storage);
}

TEST(FoldConstantViews, ReshapeFoldsWhenStridesCanExpressIt) {
  auto g = parse(R"(graph @main {
  param %w: f32[2, 3] "w" = dense<[0, 1, 2, 3, 4, 5]>
  %v: f32[3, 2] = aten::view.default(%w, [3, 2])
  %p: f32[3, 2] = aten::permute.default(%w, [1, 0])
  %r: f32[6] = aten::reshape.default(%p, [6])
  return %v, %r
})");
  EXPECT_TRUE(runPass(*g, "fold-constant-views"));
  EXPECT_EQ(valuesOf(returned(*g, 0)), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  // Flattening a transposed view needs a copy: the reshape stays for fold-constants.
  ASSERT_EQ(g->numNodes(), 1u);
  EXPECT_EQ(g->nodes().front()->op().str(), "aten::reshape.default");
}

TEST(FoldConstantViews, LeavesComputedInputsAndExpandAlone) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  param %w: f32[1, 3] "w" = dense<[0, 1, 2]>
  %p: f32[3, 2] = aten::permute.default(%x, [1, 0])
  %e: f32[4, 3] = aten::expand.default(%w, [4, 3])
  return %p, %e
})");
  EXPECT_FALSE(runPass(*g, "fold-constant-views"));
  EXPECT_EQ(g->numNodes(), 2u);
}

} // namespace
} // namespace tico
