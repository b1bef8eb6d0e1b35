// Reductions, scans and arg reductions: any/all, max.dim / min.dim values and indices,
// argmax, cumsum, var/std, prod.
#include "lowering_test_support.h"

namespace tico {
namespace {

using test::constantValues;
using test::firstOp;
using test::lower;
using test::opNames;
using test::parse;
using test::tensorAt;

TEST(LowerAnyAll, BoolInputReducesDirectlyOthersAreComparedWithZero) {
  auto g = parse(R"(graph @main {
  input %b: bool[2, 3]
  input %x: f32[2, 3]
  %a: bool[] = aten::any.default(%b)
  %d: bool[2, 1] = aten::any.dim(%x, 1, true)
  %l: bool[3] = aten::all.dim(%b, 0)
  return %a, %d, %l
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"REDUCE_ANY", "NOT_EQUAL", "REDUCE_ANY", "REDUCE_ALL"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{0, 1}));
  EXPECT_TRUE(ops[2].builtin_options.AsReducerOptions()->keep_dims);
  EXPECT_EQ(constantValues<float>(m, ops[1].inputs[1]), (std::vector<float>{0.0f}));
}

TEST(LowerMaxDim, ValuesAndIndicesAreEmittedOnlyWhenUsed) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 5]
  %v: f32[2], %i: i64[2] = @max aten::max.dim(%x, 1)
  %w: f32[2, 1], %j: i64[2, 1] = @min aten::min.dim(%x, -1, true)
  return %v, %i, %j
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"REDUCE_MAX", "ARG_MAX", "ARG_MIN", "EXPAND_DIMS"}));
  const CircleOperator &arg = firstOp(m, "ARG_MAX");
  EXPECT_EQ(arg.builtin_options.AsArgMaxOptions()->output_type, circle::TensorType::INT64);
  EXPECT_EQ(constantValues<int32_t>(m, arg.inputs[1]), (std::vector<int32_t>{1}));
  EXPECT_EQ(tensorAt(m, arg.outputs[0]).type, circle::TensorType::INT64);
}

TEST(LowerArgmax, WithoutADimTheFlattenedTensorIsReduced) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 5]
  %a: i64[] = aten::argmax.default(%x)
  %b: i64[2] = aten::argmax.default(%x, 1)
  %c: i64[1, 1] = aten::argmin.default(%x, None, true)
  return %a, %b, %c
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"RESHAPE", "ARG_MAX", "ARG_MAX", "RESHAPE", "ARG_MIN", "RESHAPE"}));
  EXPECT_EQ(constantValues<int32_t>(m, m.subgraphs[0].operators[0].inputs[1]), (std::vector<int32_t>{10}));
}

TEST(LowerCumsum, AccumulatesInTheResultDtype) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 5]
  input %i: i32[4]
  %c: f32[2, 5] = aten::cumsum.default(%x, -1)
  %d: i64[4] = aten::cumsum.default(%i, 0)
  return %c, %d
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"CUMSUM", "CAST", "CUMSUM"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(constantValues<int32_t>(m, ops[0].inputs[1]), (std::vector<int32_t>{1}));
  EXPECT_EQ(tensorAt(m, ops[0].inputs[1]).shape, (std::vector<int32_t>{}));
  EXPECT_EQ(tensorAt(m, ops[2].inputs[0]).type, circle::TensorType::INT64);
}

TEST(LowerVariance, TwoPassFormWithTheCorrection) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 4]
  %v: f32[2] = aten::var.correction(%x, [1])
  %s: f32[2, 1] = aten::std.correction(%x, [1], correction=0, keepdim=true)
  return %v, %s
})");
  CircleModel m = lower(*g);
  EXPECT_EQ(opNames(m), (std::vector<std::string>{"MEAN", "SUB", "MUL", "SUM", "MUL", "MEAN", "SUB", "MUL", "SUM",
                                                  "MUL", "SQRT"}));
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_FLOAT_EQ(constantValues<float>(m, ops[4].inputs[1])[0], 1.0f / 3.0f) << "1 / (N - 1)";
  EXPECT_FLOAT_EQ(constantValues<float>(m, ops[9].inputs[1])[0], 1.0f / 4.0f) << "1 / N";
}

TEST(LowerVariance, SymbolicReducedDimIsReported) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 4
  input %x: f32[2, s0]
  %v: f32[2] = aten::var.correction(%x, [1])
  return %v
})");
  try {
    lower(*g);
    FAIL() << "variance over a symbolic dim must be reported";
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("symbolic dim"), std::string::npos) << e.what();
  }
}

TEST(LowerProd, IsReduceProd) {
  auto g = parse(R"(graph @main {
  input %x: f32[2, 4]
  %p: f32[2] = aten::prod.dim_int(%x, 1)
  return %p
})");
  EXPECT_EQ(opNames(lower(*g)), (std::vector<std::string>{"REDUCE_PROD"}));
}

} // namespace
} // namespace tico
