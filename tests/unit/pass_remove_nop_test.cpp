// remove-nop, remove-redundant-assertion-nodes and remove-dead-code.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::countOps;
using test::parse;
using test::runPass;

TEST(RemoveNop, RemovesIdentitiesAndRewiresUsers) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  %c: f32[2, 3] = aten::clone.default(%x)
  %a: f32[2, 3] = aten::alias.default(%c)
  %d: f32[2, 3] = aten::detach.default(%a)
  %t: f32[2, 3] = aten::_to_copy.default(%d, dtype=dtype(f32))
  %p: f32[2, 3] = aten::dropout.default(%t, 0.1, false)
  %k: f32[2, 3] = aten::contiguous.default(%p, memory_format=memory_format(contiguous))
  %e: f32[2, 3] = aten::expand.default(%k, [2, 3])
  %r: f32[2, 3] = aten::relu.default(%e)
  return %r, %e
})");
  EXPECT_TRUE(runPass(*g, "remove-nop"));
  EXPECT_EQ(g->numNodes(), 1u);
  const Node &relu = *g->nodes().front();
  EXPECT_EQ(relu.input(0)->name(), "x");
  EXPECT_EQ(g->outputs()[1].value.asValue()->name(), "x") << "graph outputs are rewired too";
  EXPECT_FALSE(runPass(*g, "remove-nop")) << "nothing left: the pass must report no change";
}

TEST(RemoveNop, KeepsOpsThatChangeSomething) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  %t: i32[2, 3] = aten::_to_copy.default(%x, dtype=dtype(i32))
  %d: f16[2, 3] = aten::to.device(%x, device(cpu), dtype(f16))
  %p: f32[2, 3] = aten::dropout.default(%x, 0.1, true)
  %e: f32[4, 2, 3] = aten::expand.default(%p, [4, 2, 3])
  return %t, %d, %e
})");
  EXPECT_FALSE(runPass(*g, "remove-nop"));
  EXPECT_EQ(g->numNodes(), 4u);
}

TEST(RemoveNop, DropsMemoryFormatClonesAndDeviceMoves) {
  // Circle tensors have no strides and one device: these change nothing on the target.
  auto g = parse(R"(graph @main {
  input %x: f32[1, 2, 3, 3]
  %c: f32[1, 2, 3, 3] = aten::clone.default(%x, memory_format=memory_format(channels_last))
  %d: f32[1, 2, 3, 3] = aten::to.device(%c, device(cpu), dtype(f32))
  %r: f32[1, 2, 3, 3] = aten::relu.default(%d)
  return %r
})");
  EXPECT_TRUE(runPass(*g, "remove-nop"));
  EXPECT_EQ(g->numNodes(), 1u);
  EXPECT_EQ(g->nodes().front()->input(0)->name(), "x");
}

TEST(RemoveRedundantAssertionNodes, DropsShapeChecksAndLeavesTheirInputsToDeadCode) {
  auto g = parse(R"(graph @main {
  symbol s0 in [2, 64] hint 4
  input %x: f32[s0]
  %n: sym_int(s0) = aten::sym_size.int(%x, 0)
  %ge: sym_bool(s0 >= 2) = _operator::ge(%n, 2)
  @assert aten::_assert_scalar.default(%ge, "s0 >= 2")
  %r: f32[s0] = aten::relu.default(%x)
  return %r
})");
  EXPECT_TRUE(runPass(*g, "remove-redundant-assertion-nodes"));
  EXPECT_EQ(countOps(*g, "aten::_assert_scalar.default"), 0u);
  EXPECT_FALSE(runPass(*g, "remove-redundant-assertion-nodes"));
  EXPECT_TRUE(runPass(*g, "remove-dead-code"));
  EXPECT_EQ(g->numNodes(), 1u);
  EXPECT_FALSE(runPass(*g, "remove-dead-code"));
}

TEST(RemoveDeadCode, UnusedConstantsAreAnOption) {
  auto g = parse(R"(graph @main {
  input %x: f32[2]
  %c = const f32[2] dense<[1.0, 2.0]>
  %dead: f32[2] = aten::relu.default(%x)
  return %x
})");
  EXPECT_TRUE(runPass(*g, "remove-dead-code", {{"remove_unused_constants", false}}));
  EXPECT_EQ(g->numNodes(), 0u);
  EXPECT_EQ(g->constants().size(), 1u);
  EXPECT_TRUE(runPass(*g, "remove-dead-code"));
  EXPECT_TRUE(g->constants().empty());
}

} // namespace
} // namespace tico
