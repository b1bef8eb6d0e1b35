// scatter / scatter_add / scatter_reduce, index_put and index_copy lowerings (SCATTER_ND of
// rows), lowered and then run on the built-in interpreter. Expected values come from a plain
// reference loop in each test or from PyTorch (the expression is given next to the literal).
#include "interp_test_support.h"
#include "lowering_test_support.h"

#include <algorithm>

namespace tico {
namespace {

using test::errorOf;
using test::expectFloats;
using test::f32;
using test::i64;
using test::lower;
using test::opNames;
using test::parse;
using test::randomFloats;
using test::runModel;
using test::TensorPtr;

std::vector<TensorPtr> lowerAndRun(const std::string &ir, const std::vector<TensorPtr> &inputs,
                                   std::vector<std::string> *ops = nullptr) {
  auto g = parse(ir);
  auto model = std::make_shared<CircleModel>(lower(*g));
  if (ops)
    *ops = opNames(*model);
  return runModel(model, inputs);
}

bool has(const std::vector<std::string> &ops, const std::string &op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

TEST(LowerIndexScatter, ScatterValueFillsTheIndexedPositionsAlongDim0) {
  // torch.scatter(x, 0, i, 0.5): column c gets 0.5 in rows i[0][c] and i[1][c].
  std::vector<float> x = randomFloats(12, 1);
  std::vector<int64_t> index = {2, 0, 3, 1, 2, 0};
  std::vector<std::string> ops;
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[4, 3]
  input %i: i64[2, 3]
  %y: f32[4, 3] = aten::scatter.value(%x, 0, %i, 0.5)
  return %y
})",
                         {f32({4, 3}, x), i64({2, 3}, index)}, &ops);
  // onert 0.2 cannot load SCATTER_ND: small operands use the one-hot row match.
  EXPECT_FALSE(has(ops, "SCATTER_ND"));
  EXPECT_TRUE(has(ops, "EQUAL"));
  std::vector<float> expected = x;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      expected[static_cast<std::size_t>(index[static_cast<std::size_t>(r * 3 + c)] * 3 + c)] = 0.5f;
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, ScatterSrcReadsOnlyTheIndexExtentOfALargerSrc) {
  // scatter(x, 1, i, src) with src [3, 3] and i [3, 2]: src[:, 2] is never read.
  std::vector<float> x = randomFloats(15, 2), src = randomFloats(9, 3);
  std::vector<int64_t> index = {4, 0, 1, 3, 2, 4};
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[3, 5]
  input %i: i64[3, 2]
  input %s: f32[3, 3]
  %y: f32[3, 5] = aten::scatter.src(%x, 1, %i, %s)
  return %y
})",
                         {f32({3, 5}, x), i64({3, 2}, index), f32({3, 3}, src)});
  std::vector<float> expected = x;
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 2; ++k)
      expected[static_cast<std::size_t>(r * 5 + index[static_cast<std::size_t>(r * 2 + k)])] =
          src[static_cast<std::size_t>(r * 3 + k)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, ScatterAddSumsDuplicateIndices) {
  std::vector<float> x = randomFloats(15, 4), src = randomFloats(12, 5);
  std::vector<int64_t> index = {1, 1, 4, 1, 0, 0, 0, 0, 3, 2, 3, 2};
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[3, 5]
  input %i: i64[3, 4]
  input %s: f32[3, 4]
  %y: f32[3, 5] = aten::scatter_add.default(%x, 1, %i, %s)
  return %y
})",
                         {f32({3, 5}, x), i64({3, 4}, index), f32({3, 4}, src)});
  std::vector<float> expected = x;
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 4; ++k)
      expected[static_cast<std::size_t>(r * 5 + index[static_cast<std::size_t>(r * 4 + k)])] +=
          src[static_cast<std::size_t>(r * 4 + k)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, ScatterReduceOtherThanSumIsReported) {
  auto g = parse(R"(graph @main {
  input %x: f32[3, 5]
  input %i: i64[3, 4]
  input %s: f32[3, 4]
  %y: f32[3, 5] = aten::scatter_reduce.two(%x, 1, %i, %s, "amax")
  return %y
})");
  std::string message = errorOf([&] { lower(*g); });
  EXPECT_NE(message.find("reduce='sum' only"), std::string::npos) << message;
}

TEST(LowerIndexScatter, IndexPutAccumulateSumsDuplicateRows) {
  // index_put(x, (i,), v, accumulate=True) with row 1 indexed twice.
  std::vector<float> x = randomFloats(24, 6), v = randomFloats(20, 7);
  std::vector<int64_t> index = {1, 3, 1, 0, 5};
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[6, 4]
  input %i: i64[5]
  input %v: f32[5, 4]
  %y: f32[6, 4] = aten::index_put.default(%x, opt[%i], %v, true)
  return %y
})",
                         {f32({6, 4}, x), i64({5}, index), f32({5, 4}, v)});
  std::vector<float> expected = x;
  for (int k = 0; k < 5; ++k)
    for (int c = 0; c < 4; ++c)
      expected[static_cast<std::size_t>(index[static_cast<std::size_t>(k)] * 4 + c)] +=
          v[static_cast<std::size_t>(k * 4 + c)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, IndexPutReplacesRowsCountingNegativeIndicesFromTheEnd) {
  // x[i] = v with i = [-1, 2] writes rows 5 and 2; a [4] value row broadcasts to both.
  std::vector<float> x = randomFloats(24, 8);
  std::vector<float> v = {10, 20, 30, 40};
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[6, 4]
  input %i: i64[2]
  input %v: f32[4]
  %y: f32[6, 4] = aten::index_put.default(%x, opt[%i], %v)
  return %y
})",
                         {f32({6, 4}, x), i64({2}, {-1, 2}), f32({4}, v)});
  std::vector<float> expected = x;
  for (int row : {5, 2})
    for (int c = 0; c < 4; ++c)
      expected[static_cast<std::size_t>(row * 4 + c)] = v[static_cast<std::size_t>(c)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, IndexPutWithTwoIndexTensorsWritesElements) {
  // x[i, j] += v for i = [0, 2, 0], j = [1, 3, 1] (the element (0, 1) twice).
  std::vector<float> x = randomFloats(12, 9);
  std::vector<float> v = {1, 2, 4};
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[3, 4]
  input %i: i64[3]
  input %j: i64[3]
  input %v: f32[3]
  %y: f32[3, 4] = aten::index_put.default(%x, opt[%i, %j], %v, true)
  return %y
})",
                         {f32({3, 4}, x), i64({3}, {0, 2, 0}), i64({3}, {1, 3, 1}), f32({3}, v)});
  std::vector<float> expected = x;
  expected[1] += 1 + 4;
  expected[11] += 2;
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, IndexCopyIntoAnInnerDimOfAKVCache) {
  // cache.index_copy(2, position, new): the indexed dim moves to the front and back.
  std::vector<float> cache(48, 0.0f), fresh = randomFloats(8, 10);
  std::vector<std::string> ops;
  auto out = lowerAndRun(R"(graph @main {
  input %c: f32[1, 2, 6, 4]
  input %n: f32[1, 2, 1, 4]
  input %p: i64[1]
  %y: f32[1, 2, 6, 4] = aten::index_copy.default(%c, 2, %p, %n)
  return %y
})",
                         {f32({1, 2, 6, 4}, cache), f32({1, 2, 1, 4}, fresh), i64({1}, {3})}, &ops);
  EXPECT_TRUE(has(ops, "TRANSPOSE"));
  std::vector<float> expected = cache;
  for (int h = 0; h < 2; ++h)
    for (int c = 0; c < 4; ++c)
      expected[static_cast<std::size_t>((h * 6 + 3) * 4 + c)] = fresh[static_cast<std::size_t>(h * 4 + c)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, IndexPutWithSlicesBeforeTheIndexMatchesIndexCopy) {
  std::vector<float> cache = randomFloats(48, 11), fresh = randomFloats(16, 12);
  const std::string put = R"(graph @main {
  input %c: f32[1, 2, 6, 4]
  input %n: f32[1, 2, 2, 4]
  input %p: i64[2]
  %y: f32[1, 2, 6, 4] = aten::index_put.default(%c, opt[None, None, %p], %n)
  return %y
})";
  std::vector<TensorPtr> inputs = {f32({1, 2, 6, 4}, cache), f32({1, 2, 2, 4}, fresh), i64({2}, {5, 0})};
  auto out = lowerAndRun(put, inputs);
  std::vector<float> expected = cache;
  const int64_t rows[2] = {5, 0};
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 2; ++k)
      for (int c = 0; c < 4; ++c)
        expected[static_cast<std::size_t>((h * 6 + rows[k]) * 4 + c)] =
            fresh[static_cast<std::size_t>((h * 2 + k) * 4 + c)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, BooleanMaskIndexPutIsReported) {
  auto g = parse(R"(graph @main {
  input %x: f32[4]
  input %m: bool[4]
  input %v: f32[1]
  %y: f32[4] = aten::index_put.default(%x, opt[%m], %v)
  return %y
})");
  std::string message = errorOf([&] { lower(*g); });
  EXPECT_NE(message.find("boolean-mask"), std::string::npos) << message;
}

TEST(LowerIndexScatter, SelectScatterReplacesOneSliceAlongDim) {
  // torch.select_scatter(x, src, 1, -2) for x [2, 3, 2]: x[:, 1, :] = src.
  std::vector<float> x = randomFloats(12, 13), src = {10, 20, 30, 40};
  std::vector<std::string> ops;
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[2, 3, 2]
  input %s: f32[2, 2]
  %y: f32[2, 3, 2] = aten::select_scatter.default(%x, %s, 1, -2)
  return %y
})",
                         {f32({2, 3, 2}, x), f32({2, 2}, src)}, &ops);
  EXPECT_EQ(ops, (std::vector<std::string>{"EXPAND_DIMS", "SLICE", "SLICE", "CONCATENATION"}));
  std::vector<float> expected = x;
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 2; ++c)
      expected[static_cast<std::size_t>((a * 3 + 1) * 2 + c)] = src[static_cast<std::size_t>(a * 2 + c)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexScatter, LargeOperandsWriteRowsWithScatterNd) {
  // 8192 rows x 4096 writes: the one-hot match would hold 2^25 elements, so SCATTER_ND.
  const int64_t rows = 8192, writes = 4096, width = 8;
  std::vector<float> x = randomFloats(static_cast<std::size_t>(rows * width), 14);
  std::vector<float> v = randomFloats(static_cast<std::size_t>(writes * width), 15);
  std::vector<int64_t> index(static_cast<std::size_t>(writes));
  for (int64_t k = 0; k < writes; ++k)
    index[static_cast<std::size_t>(k)] = (k * 7 + 3) % rows; // distinct rows
  for (const char *accumulate : {"true", "false"}) {
    std::vector<std::string> ops;
    auto out = lowerAndRun(std::string(R"(graph @main {
  input %x: f32[8192, 8]
  input %i: i64[4096]
  input %v: f32[4096, 8]
  %y: f32[8192, 8] = aten::index_put.default(%x, opt[%i], %v, )") + accumulate + R"()
  return %y
})",
                           {f32({rows, width}, x), i64({writes}, index), f32({writes, width}, v)}, &ops);
    EXPECT_TRUE(has(ops, "SCATTER_ND")) << accumulate;
    std::vector<float> expected = x;
    for (int64_t k = 0; k < writes; ++k)
      for (int64_t c = 0; c < width; ++c) {
        float &e = expected[static_cast<std::size_t>(index[static_cast<std::size_t>(k)] * width + c)];
        float u = v[static_cast<std::size_t>(k * width + c)];
        e = std::string(accumulate) == "true" ? e + u : u;
      }
    expectFloats(*out.at(0), expected, 1e-5f, accumulate);
  }
}

TEST(LowerIndexScatter, IndexPutWithDuplicateRowsKeepsTheLastWrite) {
  // x[i] = v with row 1 written by v[0] and v[2]: PyTorch's CPU kernel leaves v[2].
  std::vector<float> x = randomFloats(8, 16);
  std::vector<float> v = {1, 2, 3, 4, 5, 6};
  auto out = lowerAndRun(R"(graph @main {
  input %x: f32[4, 2]
  input %i: i64[3]
  input %v: f32[3, 2]
  %y: f32[4, 2] = aten::index_put.default(%x, opt[%i], %v)
  return %y
})",
                         {f32({4, 2}, x), i64({3}, {1, 3, 1}), f32({3, 2}, v)});
  std::vector<float> expected = x;
  expected[2] = 5, expected[3] = 6; // row 1 <- v[2]
  expected[6] = 3, expected[7] = 4; // row 3 <- v[1]
  expectFloats(*out.at(0), expected);
}

} // namespace
} // namespace tico
