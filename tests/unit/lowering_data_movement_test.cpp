// Split, unbind, stack, repeat/tile, pad, flip and indexing lowerings.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

// onert 0.2 computes SPLIT_V wrongly: unequal pieces are one SLICE each.
TEST(LowerSplit, UnequalPiecesAreOneSliceEach) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 7]
  %a: f32[2, 3], %b: f32[2, 4] = @split aten::split_with_sizes.default(%x, [3, 4], 1)
  return %b
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"SLICE", "SLICE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[2]), (std::vector<int32_t>{-1, 3}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[2]), (std::vector<int32_t>{-1, 4}));
  EXPECT_EQ(ops[1].outputs[0], m.subgraphs[0].outputs[0]);
}

TEST(LowerSplit, EqualPiecesAreOneSplit) {
  auto g = parse(R"(graph @main {
  input %x: f32[6, 3]
  %a: f32[2, 3], %b: f32[2, 3], %c: f32[2, 3] = @split aten::split.Tensor(%x, 2)
  return %a, %c
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"SPLIT"}));
  const CircleOperator &op = m.subgraphs[0].operators[0];
  EXPECT_EQ(op.outputs.size(), 3u) << "the unused piece still gets a tensor";
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[0]), (std::vector<int32_t>{0}));
  EXPECT_EQ(op.inputs[1], m.subgraphs[0].inputs[0]);
  EXPECT_EQ(op.builtin_options.AsSplitOptions()->num_splits, 3);
}

TEST(LowerSplit, SymbolicDimKeepsTheRestAsMinusOne) {
  auto g = parse(R"(graph @main {
  symbol s0 in [3, 64] hint 5
  input %x: f32[s0, 4]
  %a: f32[2, 4], %b: f32[s0 - 2, 4] = @split aten::split_with_sizes.default(%x, [2, -1])
  return %a, %b
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"SLICE", "SLICE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[2]), (std::vector<int32_t>{-1, -1}));
}

TEST(LowerSplit, OnlyTheLastPieceMayBeSymbolic) {
  auto g = parse(R"(graph @main {
  symbol s0 in [3, 64] hint 5
  input %x: f32[s0, 4]
  %a: f32[s0 - 2, 4], %b: f32[2, 4] = @split aten::split_with_sizes.default(%x, [-1, 2])
  return %a, %b
})");
  auto missing = findUnsupportedOps(*g, test::stdRegistry());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("only the last piece"), std::string::npos) << missing[0].reason;
}

TEST(LowerSplit, ChunkWithAShorterLastPiece) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 5]
  %a: f32[2, 2], %b: f32[2, 2], %c: f32[2, 1] = @chunk aten::chunk.default(%x, 3, 1)
  return %a, %b, %c
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"SLICE", "SLICE", "SLICE"}));
  EXPECT_EQ(constantValues<int32_t>(m, m.subgraphs[0].operators[2].inputs[1]), (std::vector<int32_t>{0, 4}));
  EXPECT_EQ(constantValues<int32_t>(m, m.subgraphs[0].operators[2].inputs[2]), (std::vector<int32_t>{-1, 1}));
}

TEST(LowerSplit, UnbindIsUnpackAndStackIsPack) {
  auto g = parse(R"(graph @main {
  input %x: f32[3, 2]
  %a: f32[2], %b: f32[2], %c: f32[2] = @unbind aten::unbind.int(%x)
  %s: f32[2, 3] = aten::stack.default([%a, %b, %c], 1)
  return %s
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"UNPACK", "PACK"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].builtin_options.AsUnpackOptions()->num, 3);
  EXPECT_EQ(ops[1].builtin_options.AsPackOptions()->axis, 1);
  EXPECT_EQ(ops[1].builtin_options.AsPackOptions()->values_count, 3);
}

TEST(LowerRepeat, TileWithInt32MultiplesAndNewLeadingDims) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  %r: f32[2, 4, 6] = aten::repeat.default(%x, [2, 2, 2])
  return %r
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE", "TILE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{2, 2, 2}));
  EXPECT_EQ(tensorAt(m, ops[1].inputs[1]).type, circle::TensorType::INT32);
}

TEST(LowerPad, ConstantPadOrdersPaddingsByDim) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3, 4]
  %z: f32[2, 5, 7] = aten::constant_pad_nd.default(%x, [1, 2, 0, 2])
  %v: f32[2, 3, 6] = aten::constant_pad_nd.default(%x, [1, 1], -2.5)
  %r: f32[2, 3, 6] = aten::pad.default(%x, [1, 1], "reflect")
  return %z, %v, %r
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"PAD", "PADV2", "MIRROR_PAD"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{0, 0, 0, 2, 1, 2}));
  EXPECT_EQ(tensorAt(m, ops[0].inputs[1]).shape, (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(constantValues<float>(m, ops[1].inputs[2]), (std::vector<float>{-2.5f}));
}

// Runtimes pad up to rank 4 (onert 0.2: "Padding for rank > 4 NYI"): a rank-5 pad of D, H, W
// runs on [N*C, D, H, W]; a symbolic batch stays the view's one -1 dim.
TEST(LowerPad, RankFivePadMergesTheUnpaddedDims) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3, 4, 5, 6]
  input %y: f32[s0, 3, 4, 5, 6]
  %z: f32[2, 3, 5, 7, 7] = aten::constant_pad_nd.default(%x, [1, 0, 1, 1, 0, 1])
  %w: f32[s0, 3, 4, 5, 8] = aten::constant_pad_nd.default(%y, [1, 1], 2.0)
  return %z, %w
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE", "PAD", "RESHAPE", "RESHAPE", "PADV2", "RESHAPE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(tensorAt(m, ops[1].inputs[0]).shape, (std::vector<int32_t>{6, 4, 5, 6}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{0, 0, 0, 1, 1, 1, 1, 0}));
  EXPECT_EQ(tensorAt(m, ops[2].outputs[0]).shape, (std::vector<int32_t>{2, 3, 5, 7, 7}));
  // [s0, 3, 4, 5] merge into one symbolic dim: RESHAPE [-1, 6], PADV2 of the last dim, back.
  EXPECT_EQ(constantValues<int32_t>(m, ops[3].inputs[1]), (std::vector<int32_t>{-1, 6}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[4].inputs[1]), (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[5].inputs[1]), (std::vector<int32_t>{-1, 3, 4, 5, 8}));
}

// Nothing to merge (every dim padded), or rank 4 already: the pad keeps its rank.
TEST(LowerPad, PadWithoutAdjacentUnpaddedDimsKeepsItsRank) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3, 4, 5, 6]
  input %y: f32[2, 3, 4, 5]
  %z: f32[3, 4, 5, 6, 7] = aten::constant_pad_nd.default(%x, [0, 1, 0, 1, 0, 1, 0, 1, 1, 0])
  %w: f32[2, 3, 4, 7] = aten::constant_pad_nd.default(%y, [1, 1])
  return %z, %w
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"PAD", "PAD"}));
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].operators[0].inputs[1]).shape, (std::vector<int32_t>{5, 2}));
}

TEST(LowerPad, NegativePaddingIsReported) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 4]
  %z: f32[2, 2] = aten::constant_pad_nd.default(%x, [-1, -1])
  return %z
})");
  try {
    lower(*g);
    FAIL();
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("negative (cropping) padding"), std::string::npos) << e.what();
  }
}

TEST(LowerFlip, IsReverseV2) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  %f: f32[2, 3] = aten::flip.default(%x, [-1, 0])
  return %f
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"REVERSE_V2"}));
  EXPECT_EQ(constantValues<int32_t>(m, m.subgraphs[0].operators[0].inputs[1]), (std::vector<int32_t>{0, 1}));
}

TEST(LowerIndex, OneIndexTensorIsAGatherAlongItsDim) {
  auto g = parse(R"(graph @main {
  input %x: f32[4, 5, 6]
  input %i: i64[2, 3]
  %c = const i64[2] dense<[1, -1]>
  %y: f32[4, 2, 3, 6] = aten::index.Tensor(%x, [None, %i])
  %z: f32[2, 5, 6] = aten::index.Tensor(%x, [%c])
  return %y, %z
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"GATHER", "GATHER"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].builtin_options.AsGatherOptions()->axis, 1);
  EXPECT_EQ(constantValues<int64_t>(m, ops[1].inputs[1]), (std::vector<int64_t>{1, 3})) << "-1 counts from the end";
}

TEST(LowerIndex, UnsupportedIndexingIsReported) {
  // Index tensors separated by a full slice move the indexed dims to the front in PyTorch.
  auto g = parse(R"(graph @main {
  input %x: f32[4, 5, 6]
  input %i: i64[3]
  input %j: i64[3]
  %y: f32[3, 5] = aten::index.Tensor(%x, [%i, None, %j])
  return %y
})");
  try {
    lower(*g);
    FAIL();
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("separated by full slices"), std::string::npos) << e.what();
  }
}

TEST(LowerGatherNd, CircleGatherNdIsGatherNd) {
  auto g = parse(R"(graph @main {
  input %x: f32[4, 5]
  input %i: i32[3, 2]
  %y: f32[3] = circle::gather_nd.default(%x, %i)
  return %y
})");
  EXPECT_EQ(opNames(lower(*g)), (std::vector<std::string>{"GATHER_ND"}));
}

} // namespace
} // namespace tico
