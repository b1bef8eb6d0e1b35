// Shape and data-movement lowerings: reshape (static, -1, runtime), transpose, squeeze,
// unsqueeze, cat, slice, select, expand, gather, softmax, reductions.
#include "lowering_test_support.h"

#include <algorithm>

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

TEST(LowerReshape, StaticShapeIsAnInt32Constant) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 6]
  %v: f32[3, 4] = aten::view.default(%x, [3, -1])
  return %v
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE"}));
  const CircleOperator &op = m.subgraphs[0].operators[0];
  EXPECT_EQ(tensorAt(m, op.inputs[1]).type, circle::TensorType::INT32);
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[1]), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(op.builtin_options.AsReshapeOptions()->new_shape, (std::vector<int32_t>{3, 4}));
}

TEST(LowerReshape, OneSymbolicDimIsMinusOne) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  input %x: f32[s0, 3, 4]
  %v: f32[s0*3, 4] = aten::reshape.default(%x, [-1, 4])
  return %v
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(constantValues<int32_t>(m, m.subgraphs[0].operators[0].inputs[1]), (std::vector<int32_t>{-1, 4}));
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).shape_signature, (std::vector<int32_t>{-1, 4}));
}

TEST(LowerReshape, SeveralSymbolicDimsAreComputedAtRuntime) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  symbol s1 in [1, 64] hint 5
  input %x: f32[s0, s1, 8]
  %a: sym_int(s0) = aten::sym_size.int(%x, 0)
  %b: sym_int(s1) = aten::sym_size.int(%x, 1)
  %v: f32[s0, s1, 2, 2, 2] = aten::view.default(%x, [%a, %b, 2, 2, 2])
  return %v
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"SHAPE", "GATHER", "SHAPE", "GATHER", "CONCATENATION", "RESHAPE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{0}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[3].inputs[1]), (std::vector<int32_t>{1}));
  ASSERT_EQ(ops[4].inputs.size(), 3u);
  EXPECT_EQ(constantValues<int32_t>(m, ops[4].inputs[2]), (std::vector<int32_t>{2, 2, 2}));
  EXPECT_EQ(tensorAt(m, ops[4].outputs[0]).shape, (std::vector<int32_t>{5}));
  EXPECT_EQ(ops[5].inputs[1], ops[4].outputs[0]);
  EXPECT_TRUE(ops[5].builtin_options.AsReshapeOptions()->new_shape.empty());
}

TEST(LowerReshape, SymbolicArithmeticIsLoweredOnDemand) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  symbol s1 in [1, 64] hint 5
  input %x: f32[s0, s1, 8]
  %a: sym_int(s0) = aten::sym_size.int(%x, 0)
  %b: sym_int(s1) = aten::sym_size.int(%x, 1)
  %two: sym_int(2*s0) = _operator::mul(%a, 2)
  %v: f32[2*s0, s1, 4] = aten::view.default(%x, [%two, %b, 4])
  return %v
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m),
            (std::vector<std::string>{"SHAPE", "GATHER", "MUL", "SHAPE", "GATHER", "CONCATENATION", "RESHAPE"}));
}

TEST(LowerTranspose, PermutationsAreNormalised) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3, 4]
  %p: f32[4, 2, 3] = aten::permute.default(%x, [-1, 0, 1])
  %t: f32[4, 3, 2] = aten::transpose.int(%p, -1, 1)
  return %t
})");
  CircleModel m = lower(*g);
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{2, 0, 1}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{0, 2, 1}));
}

TEST(LowerSqueeze, OnlySizeOneDimsAreSqueezed) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 3, 1]
  %u: f32[1, 1, 3, 1] = aten::unsqueeze.default(%x, -4)
  %s: f32[1, 3] = aten::squeeze.dims(%u, [1, 2, -1])
  %n: f32[1, 3] = aten::squeeze.dim(%s, 1)
  return %n
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"EXPAND_DIMS", "SQUEEZE", "TRANSPOSE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{0}));
  EXPECT_EQ(ops[1].builtin_options.AsSqueezeOptions()->squeeze_dims, (std::vector<int32_t>{1, 3}));
}

TEST(LowerConcat, NegativeDimIsNormalised) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  input %y: f32[2, 1]
  %c: f32[2, 7] = aten::cat.default([%x, %y, %x], -1)
  return %c
})");
  CircleModel m = lower(*g);
  const CircleOperator &op = firstOp(m, "CONCATENATION");
  EXPECT_EQ(op.inputs.size(), 3u);
  EXPECT_EQ(op.builtin_options.AsConcatenationOptions()->axis, 1);
}

TEST(LowerSlice, StaticBoundsAreClampedAndNormalised) {
  auto g = parse(R"(graph @main {
  input %x: f32[3, 8]
  %s: f32[3, 3] = aten::slice.Tensor(%x, 1, -6, 9223372036854775807, 2)
  return %s
})");
  CircleModel m = lower(*g);
  const CircleOperator &op = firstOp(m, "STRIDED_SLICE");
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[1]), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[2]), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[3]), (std::vector<int32_t>{1, 2}));
  const auto *options = op.builtin_options.AsStridedSliceOptions();
  EXPECT_EQ(options->begin_mask, 1);
  EXPECT_EQ(options->end_mask, 3) << "dim 0 is whole, dim 1 runs to the end";
}

TEST(LowerSlice, EndInsideTheDimIsClamped) {
  auto g = parse(R"(graph @main {
  input %x: f32[8]
  %s: f32[4] = aten::slice.Tensor(%x, 0, 1, 5)
  %e: f32[0] = aten::slice.Tensor(%x, 0, 6, 2)
  return %s, %e
})");
  CircleModel m = lower(*g);
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{1}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[2]), (std::vector<int32_t>{5}));
  EXPECT_EQ(ops[0].builtin_options.AsStridedSliceOptions()->end_mask, 0);
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[2]), (std::vector<int32_t>{6})) << "empty: end = begin";
}

TEST(LowerSlice, SymbolicDimKeepsNegativeBounds) {
  auto g = parse(R"(graph @main {
  symbol s0 in [4, 64] hint 8
  input %x: f32[s0]
  %s: f32[s0 + -3] = aten::slice.Tensor(%x, 0, 1, -2)
  return %s
})");
  CircleModel m = lower(*g);
  const CircleOperator &op = firstOp(m, "STRIDED_SLICE");
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[1]), (std::vector<int32_t>{1}));
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[2]), (std::vector<int32_t>{-2}));
}

// x[:, :x.shape[1] - 1] on a symbolic dim: the end is "size - 1", written as the constant -1
// rather than computed from SHAPE (onert cannot run a run-time sized slice with a dynamic
// output signature).
TEST(LowerSlice, SizeRelativeEndBecomesAConstantNegativeBound) {
  auto g = parse(R"(graph @main {
  symbol s0 in [2, 64] hint 8
  input %x: f32[2, s0]
  %n: sym_int(s0) = aten::sym_size.int(%x, 1)
  %e: sym_int(s0 + -1) = _operator::sub(%n, 1)
  %s: f32[2, s0 + -1] = aten::slice.Tensor(%x, 1, 0, %e)
  return %s
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"STRIDED_SLICE"})) << "no SHAPE computation";
  const CircleOperator &op = firstOp(m, "STRIDED_SLICE");
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[2]), (std::vector<int32_t>{0, -1}));
}

TEST(LowerSelect, NegativeIndexIsAScalarGatherIndex) {
  auto g = parse(R"(graph @main {
  input %x: f32[3, 5]
  %s: f32[3] = aten::select.int(%x, 1, -1)
  return %s
})");
  CircleModel m = lower(*g);
  const CircleOperator &op = firstOp(m, "GATHER");
  EXPECT_EQ(op.builtin_options.AsGatherOptions()->axis, 1);
  EXPECT_TRUE(tensorAt(m, op.inputs[1]).shape.empty());
  EXPECT_EQ(constantValues<int32_t>(m, op.inputs[1]), (std::vector<int32_t>{4}));
}

TEST(LowerEmbedding, GathersRowsOfTheWeight) {
  auto g = parse(R"(graph @main {
  input %ids: i64[2, 3]
  param %w: f32[10, 4] "emb.weight" = )" + test::iota(40) + R"(
  %e: f32[2, 3, 4] = aten::embedding.default(%w, %ids)
  return %e
})");
  CircleModel m = lower(*g);
  const CircleOperator &op = firstOp(m, "GATHER");
  EXPECT_EQ(op.builtin_options.AsGatherOptions()->axis, 0);
  EXPECT_EQ(tensorAt(m, op.inputs[0]).name, "w");
}

// A symbolic dim that is a dim of an existing tensor is built without value-dependent shapes
// (static_shapes.cpp): zeros of the result shape are assembled from a slice of that tensor and
// added to the input, so runtimes that infer shapes statically keep the result static.
TEST(LowerExpand, SymbolicDimsComeFromTheInputShape) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0, 1]
  %e: f32[2, s0, 4] = aten::expand.default(%x, [2, -1, 4])
  return %e
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"STRIDED_SLICE", "ZEROS_LIKE", "RESHAPE", "ADD", "ADD"}));
  const auto &ops = m.subgraphs[0].operators;
  // Dim 0 of %x, as a vector.
  EXPECT_EQ(ops[0].inputs[0], m.subgraphs[0].inputs[0]);
  EXPECT_EQ(ops[0].builtin_options.AsStridedSliceOptions()->shrink_axis_mask, 2);
  // Placed at position 1 of the result: [1, -1, 1].
  EXPECT_EQ(constantValues<int32_t>(m, ops[2].inputs[1]), (std::vector<int32_t>{1, -1, 1}));
  // Broadcast with the static zeros [2, 1, 4].
  EXPECT_EQ(tensorAt(m, ops[3].inputs[0]).shape, (std::vector<int32_t>{2, 1, 4}));
  EXPECT_EQ(tensorAt(m, ops[3].outputs[0]).shape_signature, (std::vector<int32_t>{2, -1, 4}));
  // Finally the input plus those zeros is the expanded result.
  EXPECT_EQ(ops[4].inputs[0], m.subgraphs[0].inputs[0]);
  EXPECT_EQ(ops[4].outputs[0], m.subgraphs[0].outputs[0]);
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).shape_signature, (std::vector<int32_t>{2, -1, 4}));
}

// bool tensors cannot be added: the same value-free broadcast runs on the int32 0/1 values,
// cast back to bool (exact), so the shape still follows from the input's.
TEST(LowerExpand, BoolExpansionAddsZerosInInt32) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: bool[s0, 1]
  %e: bool[2, s0, 4] = aten::expand.default(%x, [2, -1, 4])
  return %e
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m),
            (std::vector<std::string>{"STRIDED_SLICE", "CAST", "ZEROS_LIKE", "RESHAPE", "ADD", "CAST", "ADD", "CAST"}));
  const auto &ops = m.subgraphs[0].operators;
  // x as int32, plus the int32 zeros of the result shape, cast back to bool into the output.
  EXPECT_EQ(ops[5].inputs[0], m.subgraphs[0].inputs[0]);
  EXPECT_EQ(tensorAt(m, ops[5].outputs[0]).type, circle::TensorType::INT32);
  EXPECT_EQ(ops[6].inputs[0], ops[5].outputs[0]);
  EXPECT_EQ(ops[6].inputs[1], ops[4].outputs[0]);
  EXPECT_EQ(ops[7].outputs[0], m.subgraphs[0].outputs[0]);
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).type, circle::TensorType::BOOL);
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).shape_signature, (std::vector<int32_t>{2, -1, 4}));
}

// Only unit dims inserted / removed around several symbolic dims (attention scores
// [h, s, s] -> [1, h, s, s]): SQUEEZE / EXPAND_DIMS, whose shapes follow from the input's,
// instead of a RESHAPE to a shape read at run time.
TEST(LowerReshape, UnitDimsAroundSymbolicDimsAreSqueezesAndExpansions) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  input %x: f32[1, 4, s0, s0]
  %a: sym_int(s0) = aten::sym_size.int(%x, 2)
  %v: f32[4, s0, 1, s0] = aten::view.default(%x, [4, %a, 1, %a])
  return %v
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"SQUEEZE", "EXPAND_DIMS"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].builtin_options.AsSqueezeOptions()->squeeze_dims, (std::vector<int32_t>{0}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[1].inputs[1]), (std::vector<int32_t>{2}));
  EXPECT_EQ(ops[1].outputs[0], m.subgraphs[0].outputs[0]);
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].outputs[0]).shape_signature, (std::vector<int32_t>{4, -1, 1, -1}));
}

// A reshape that moves a symbolic dim is not a unit-dim change: the shape is read at run time.
TEST(LowerReshape, ReorderedSymbolicDimsStillReadTheShape) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  symbol s1 in [1, 64] hint 3
  input %x: f32[s0, s1]
  %a: sym_int(s0) = aten::sym_size.int(%x, 0)
  %b: sym_int(s1) = aten::sym_size.int(%x, 1)
  %v: f32[s1, s0, 1] = aten::view.default(%x, [%b, %a, 1])
  return %v
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m).back(), "RESHAPE");
}

// Attention's head split and merge with batch and sequence both dynamic ([b, s, h*d] <->
// [b, s, h, d]): SPLIT + PACK and UNPACK + CONCATENATION, whose shapes follow from the input's,
// instead of a RESHAPE to a shape read at run time.
TEST(LowerReshape, HeadSplitAndMergeAroundSymbolicDimsArePacks) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 2
  symbol s1 in [1, 64] hint 5
  input %x: f32[s0, s1, 8]
  %a: sym_int(s0) = aten::sym_size.int(%x, 0)
  %b: sym_int(s1) = aten::sym_size.int(%x, 1)
  %v: f32[s0, s1, 2, 4] = aten::view.default(%x, [%a, %b, 2, 4])
  %w: f32[s0, s1, 8] = aten::view.default(%v, [%a, %b, 8])
  return %v, %w
})");
  CircleModel m = lower(*g);
  ASSERT_EQ(opNames(m), (std::vector<std::string>{"SPLIT", "PACK", "UNPACK", "CONCATENATION"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[0]), (std::vector<int32_t>{2})) << "split along the last dim";
  EXPECT_EQ(ops[0].builtin_options.AsSplitOptions()->num_splits, 2);
  ASSERT_EQ(ops[0].outputs.size(), 2u);
  EXPECT_EQ(tensorAt(m, ops[0].outputs[0]).shape_signature, (std::vector<int32_t>{-1, -1, 4}));
  EXPECT_EQ(ops[1].builtin_options.AsPackOptions()->axis, 2);
  EXPECT_EQ(ops[1].outputs[0], m.subgraphs[0].outputs[0]);
  EXPECT_EQ(ops[2].builtin_options.AsUnpackOptions()->num, 2);
  EXPECT_EQ(ops[2].builtin_options.AsUnpackOptions()->axis, 2);
  EXPECT_EQ(ops[3].builtin_options.AsConcatenationOptions()->axis, 2);
  EXPECT_EQ(ops[3].outputs[0], m.subgraphs[0].outputs[1]);
}

// A position-id buffer cut to the sequence length (ids[:, :s], s a dim of the input ids): a
// GATHER of a value-free iota of that dim, not a STRIDED_SLICE whose end is read at run time.
TEST(LowerSlice, PrefixAsLongAsAnotherTensorsDimIsAGatherOfAnIota) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 32] hint 8
  input %ids: i64[1, s0]
  input %positions: i64[1, 64]
  %n: sym_int(s0) = aten::sym_size.int(%ids, 1)
  %s: i64[1, s0] = aten::slice.Tensor(%positions, 1, 0, %n)
  return %s
})");
  CircleModel m = lower(*g);
  const auto names = opNames(m);
  EXPECT_EQ(names.back(), "GATHER");
  EXPECT_EQ(std::count(names.begin(), names.end(), "SHAPE"), 0) << "no shape read at run time";
  const CircleOperator &gather = firstOp(m, "GATHER");
  EXPECT_EQ(gather.builtin_options.AsGatherOptions()->axis, 1);
  EXPECT_EQ(gather.outputs[0], m.subgraphs[0].outputs[0]);
  EXPECT_EQ(tensorAt(m, gather.inputs[1]).type, circle::TensorType::INT32);
}

// Without a range that proves the prefix fits, PyTorch's clamping must be kept: STRIDED_SLICE.
TEST(LowerSlice, PrefixThatMayOverrunTheDimStaysAStridedSlice) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 128] hint 8
  input %ids: i64[1, s0]
  input %positions: i64[1, 64]
  %n: sym_int(s0) = aten::sym_size.int(%ids, 1)
  %s: i64[1, s0] = aten::slice.Tensor(%positions, 1, 0, %n)
  return %s
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m).back(), "STRIDED_SLICE");
}

// The end of x[:, :s] on a dim of size s + 1 is the size minus one: the constant -1, also when
// the bound's symbolic text is not written in terms of the size.
TEST(LowerSlice, AffineEndOneBelowTheSizeIsMinusOne) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 8
  input %x: f32[2, s0 + 1]
  input %y: f32[s0]
  %n: sym_int(s0) = aten::sym_size.int(%y, 0)
  %s: f32[2, s0] = aten::slice.Tensor(%x, 1, 0, %n)
  return %s
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"STRIDED_SLICE"})) << "no SHAPE computation";
  EXPECT_EQ(constantValues<int32_t>(m, firstOp(m, "STRIDED_SLICE").inputs[2]), (std::vector<int32_t>{0, -1}));
}

TEST(LowerSoftmax, OtherDimsAreMovedLast) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3, 4]
  %s: f32[2, 3, 4] = aten::_softmax.default(%x, 1, false)
  %l: f32[2, 3, 4] = aten::softmax.int(%s, -1)
  return %l
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"TRANSPOSE", "SOFTMAX", "TRANSPOSE", "SOFTMAX"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{0, 2, 1}));
  EXPECT_EQ(tensorAt(m, ops[1].outputs[0]).shape, (std::vector<int32_t>{2, 4, 3}));
  EXPECT_FLOAT_EQ(ops[1].builtin_options.AsSoftmaxOptions()->beta, 1.0f);
}

TEST(LowerReductions, AxesAreInt32AndKeepDimsIsHonoured) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3, 4]
  input %i: i32[2, 3]
  %m: f32[2, 1, 1] = aten::mean.dim(%x, [-1, 1], true)
  %s: i64[2] = aten::sum.dim_IntList(%i, [1])
  return %m, %s
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MEAN", "CAST", "SUM"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(ops[0].builtin_options.AsReducerOptions()->keep_dims);
  EXPECT_FALSE(ops[2].builtin_options.AsReducerOptions()->keep_dims);
  EXPECT_EQ(tensorAt(m, ops[2].inputs[0]).type, circle::TensorType::INT64);
}

TEST(LowerReductions, RankFourToRankTwoKeepsDimsThenSqueezes) {
  auto g = parse(R"(graph @main {
  input %x: f32[1, 8, 3, 3]
  %m: f32[1, 8] = aten::mean.dim(%x, [2, 3])
  return %m
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MEAN", "SQUEEZE"}));
  EXPECT_EQ(tensorAt(m, m.subgraphs[0].operators[0].outputs[0]).shape, (std::vector<int32_t>{1, 8, 1, 1}));
}

} // namespace
} // namespace tico
