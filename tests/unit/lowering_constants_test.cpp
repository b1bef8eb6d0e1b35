// Constant producers (full/zeros/ones/*_like/scalar_tensor/arange): constants when static —
// a fill is a stride-0 view of one element — FILL / RANGE when symbolic; 16-bit float
// constants and casts.
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

TEST(LowerConstants, StaticFillsAreOneElementViews) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 3]
  %f: f32[2, 3] = aten::full.default([2, 3], 1.5)
  %o: f32[2, 3] = aten::ones_like.default(%x)
  %s: f32[] = aten::scalar_tensor.default(4.0)
  %a: f32[2, 3] = aten::add.Tensor(%x, %f)
  %b: f32[2, 3] = aten::mul.Tensor(%a, %o)
  %c: f32[2, 3] = aten::sub.Tensor(%b, %s)
  return %c
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"ADD", "MUL", "SUB"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<float>(m, ops[0].inputs[1]), (std::vector<float>(6, 1.5f)));
  EXPECT_EQ(tensorAt(m, ops[0].inputs[1]).shape, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(m.buffers[tensorAt(m, ops[0].inputs[1]).buffer].data->storage->size(), sizeof(float))
      << "one element behind a stride-0 view";
  EXPECT_EQ(constantValues<float>(m, ops[1].inputs[1]), (std::vector<float>(6, 1.0f)));
  EXPECT_EQ(constantValues<float>(m, ops[2].inputs[1]), (std::vector<float>{4.0f}));
}

TEST(LowerConstants, SymbolicFillsOfTensorDimsKeepShapesStatic) {
  // Each symbolic dim is a dim of x: zeros come from slicing x (no SHAPE / FILL), so a runtime
  // infers every shape from the input shapes.
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0, 4]
  %z: f32[s0, 4] = aten::zeros_like.default(%x)
  %n: sym_int(s0) = aten::sym_size.int(%x, 0)
  %f: i64[s0, 2] = aten::full.default([%n, 2], 7, dtype=dtype(i64))
  return %z, %f
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"STRIDED_SLICE", "ZEROS_LIKE", "RESHAPE", "ADD", "ADD",
                                                  "STRIDED_SLICE", "ZEROS_LIKE", "CAST", "RESHAPE", "ADD", "ADD"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].builtin_options.AsStridedSliceOptions()->shrink_axis_mask, 2) << "keep dim 0, drop dim 1";
  EXPECT_EQ(constantValues<int32_t>(m, ops[2].inputs[1]), (std::vector<int32_t>{-1, 1}));
  EXPECT_EQ(constantValues<float>(m, ops[3].inputs[0]), (std::vector<float>{0, 0, 0, 0})) << "the static dims";
  EXPECT_EQ(constantValues<int64_t>(m, ops[10].inputs[1]), (std::vector<int64_t>{7}));
  EXPECT_EQ(tensorAt(m, ops[10].outputs[0]).shape_signature, (std::vector<int32_t>{-1, 2}));
}

TEST(LowerConstants, SymbolicBoolFillsAreInt32ZerosPlusTheFlagCastBack) {
  // A causal mask's torch.ones((s, s), dtype=bool): bool has no ADD, so the value-free form runs
  // in int32 and casts back, instead of FILL over a runtime shape.
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[2, s0]
  %n: sym_int(s0) = aten::sym_size.int(%x, 1)
  %f: bool[s0, s0] = aten::full.default([%n, %n], true, dtype=dtype(bool))
  return %f
})");
  CircleModel m = lower(*g);
  const auto names = opNames(m);
  EXPECT_EQ(std::count(names.begin(), names.end(), "FILL"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "SHAPE"), 0);
  ASSERT_EQ(names.back(), "CAST");
  const auto &ops = m.subgraphs[0].operators;
  const CircleOperator &add = ops[ops.size() - 2];
  EXPECT_EQ(names[names.size() - 2], "ADD");
  EXPECT_EQ(constantValues<int32_t>(m, add.inputs[1]), (std::vector<int32_t>{1}));
  EXPECT_EQ(tensorAt(m, ops.back().outputs[0]).type, circle::TensorType::BOOL);
  EXPECT_EQ(tensorAt(m, ops.back().outputs[0]).shape_signature, (std::vector<int32_t>{-1, -1}));
}

TEST(LowerConstants, ComputedSymbolicSizesAreFillOverARuntimeShape) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0, 4]
  %n: sym_int(s0) = aten::sym_size.int(%x, 0)
  %m: sym_int(2*s0) = _operator::mul(%n, 2)
  %f: f32[2*s0] = aten::full.default([%m], 1.5)
  return %f
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"SHAPE", "GATHER", "MUL", "FILL"}));
  EXPECT_EQ(constantValues<float>(m, m.subgraphs[0].operators[3].inputs[1]), (std::vector<float>{1.5f}));
}

TEST(LowerConstants, ArangeIsComputedAnIotaOrARange) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0]
  %a: i64[4] = aten::arange.start_step(1, 9, 2)
  %f: f32[3] = aten::arange.default(2.5, dtype=dtype(f32))
  %n: sym_int(s0) = aten::sym_size.int(%x, 0)
  %i: i64[s0] = aten::arange.default(%n)
  %r: i64[s0 - 1] = aten::arange.start(1, %n)
  return %a, %f, %i, %r
})");
  CircleModel m = lower(*g);
  // Static aranges are constants (graph outputs get an identity copy); arange(n) of a tensor dim
  // with a bounded range (s0 <= 64) is counted value-free: ones of x's extent after 63 zeros,
  // convolved with 64 ones, minus 1; another symbolic arange is RANGE over rank-0 operands.
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"STRIDED_SLICE", "ZEROS_LIKE", "RESHAPE", "ADD", "PAD", "CONV_2D",
                                                  "RESHAPE", "SUB", "CAST", "SHAPE", "GATHER", "RESHAPE", "RANGE",
                                                  "CAST", "TRANSPOSE", "TRANSPOSE"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[4].inputs[1]), (std::vector<int32_t>{0, 0, 0, 0, 63, 0, 0, 0}))
      << "bound - 1 zeros before the ones";
  EXPECT_EQ(constantValues<float>(m, ops[5].inputs[1]), (std::vector<float>(64, 1.0f))) << "a window of 64 ones";
  EXPECT_EQ(tensorAt(m, ops[5].inputs[1]).shape, (std::vector<int32_t>{1, 1, 64, 1}));
  EXPECT_EQ(tensorAt(m, ops[5].outputs[0]).shape_signature, (std::vector<int32_t>{1, 1, -1, 1}));
  EXPECT_EQ(constantValues<int64_t>(m, ops[14].inputs[0]), (std::vector<int64_t>{1, 3, 5, 7}));
  EXPECT_EQ(constantValues<float>(m, ops[15].inputs[0]), (std::vector<float>{0.0f, 1.0f, 2.0f}));
  EXPECT_EQ(constantValues<int32_t>(m, ops[12].inputs[0]), (std::vector<int32_t>{1}));
  EXPECT_EQ(tensorAt(m, ops[11].outputs[0]).shape, (std::vector<int32_t>{})) << "RANGE takes scalars";
}

TEST(LowerConstants, ArangeOfAnUnboundedDimIsARange) {
  // Without an upper bound the iota cannot be counted by a window: RANGE over the runtime size.
  auto g = parse(R"(graph @main {
  symbol s0 in [1, inf] hint 3
  input %x: f32[s0]
  %n: sym_int(s0) = aten::sym_size.int(%x, 0)
  %i: i64[s0] = aten::arange.default(%n)
  return %i
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"SHAPE", "GATHER", "RESHAPE", "CAST", "RANGE", "CAST"}));
}

TEST(LowerConstants, HalfPrecisionConstantsAndCasts) {
  auto g = parse(R"(graph @main {
  input %x: f16[3]
  input %y: bf16[3]
  %h: f16[3] = aten::full.default([3], 1.5, dtype=dtype(f16))
  %b: bf16[3] = aten::full.default([3], -2.0, dtype=dtype(bf16))
  %cx: f32[3] = aten::_to_copy.default(%x, dtype=dtype(f32))
  %cy: f32[3] = aten::_to_copy.default(%y, dtype=dtype(f32))
  %ch: f32[3] = aten::_to_copy.default(%h, dtype=dtype(f32))
  %cb: f32[3] = aten::_to_copy.default(%b, dtype=dtype(f32))
  return %cx, %cy, %ch, %cb
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CAST", "CAST", "CAST", "CAST"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(tensorAt(m, ops[0].inputs[0]).type, circle::TensorType::FLOAT16);
  EXPECT_EQ(tensorAt(m, ops[1].inputs[0]).type, circle::TensorType::BFLOAT16);
  EXPECT_EQ(ops[0].builtin_options.AsCastOptions()->in_data_type, circle::TensorType::FLOAT16);
  EXPECT_EQ(constantValues<uint16_t>(m, ops[2].inputs[0]), (std::vector<uint16_t>(3, 0x3e00))) << "1.5 in binary16";
  EXPECT_EQ(constantValues<uint16_t>(m, ops[3].inputs[0]), (std::vector<uint16_t>(3, 0xc000))) << "-2 in bfloat16";
}

} // namespace
} // namespace tico
