// aten::gather through convert-gather-to-gather-nd (one GATHER of the flattened input at int32
// linear offsets: onert 0.2's CPU backend has no GATHER_ND), index.Tensor with index tensors
// that broadcast together, and remainder -> FLOOR_MOD; lowered and run on the interpreter.
#include "interp_test_support.h"
#include "legalize_test_support.h"

#include <algorithm>

namespace tico {
namespace {

using test::expectFloats;
using test::expectValues;
using test::f32;
using test::i32;
using test::i64;
using test::opNames;
using test::randomFloats;
using test::runModel;

std::vector<std::string> circleOps(const CircleModel &m) { return opNames(m); }

TEST(LowerIndexGather, GatherBecomesOneGatherOfTheFlattenedInput) {
  // torch.gather(x, 0, i) for x [4, 5], i [3, 5]: out[r][c] = x[i[r][c]][c].
  auto g = test::parseWithPlugins(R"(graph @main {
  input %x: f32[4, 5]
  input %i: i64[3, 5]
  %y: f32[3, 5] = aten::gather.default(%x, 0, %i)
  return %y
})");
  ASSERT_TRUE(test::runLegalizePass(*g, "convert-gather-to-gather-nd"));
  EXPECT_EQ(test::countOps(*g, "aten::gather.default"), 0u);
  EXPECT_EQ(test::countOps(*g, "circle::gather_nd.default"), 0u);
  EXPECT_EQ(test::countOps(*g, "aten::index.Tensor"), 1u);
  auto model = std::make_shared<CircleModel>(test::lowerWithPlugins(*g));
  std::vector<std::string> ops = circleOps(*model);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "GATHER_ND"), 0);
  EXPECT_EQ(ops.back(), "GATHER");

  std::vector<float> x = randomFloats(20, 1);
  std::vector<int64_t> index = {3, 0, 1, 2, 3, 0, 0, 2, 1, 1, 2, 3, 3, 0, 2};
  auto out = runModel(model, {f32({4, 5}, x), i64({3, 5}, index)});
  std::vector<float> expected(15);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c)
      expected[static_cast<std::size_t>(r * 5 + c)] = x[static_cast<std::size_t>(index[static_cast<std::size_t>(r * 5 + c)] * 5 + c)];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexGather, GatherAlongTheLastDimOfARank3Input) {
  // torch.gather(x, 2, i) for x [2, 3, 6], i [2, 2, 4] (smaller than x in dim 1).
  auto g = test::parseWithPlugins(R"(graph @main {
  input %x: f32[2, 3, 6]
  input %i: i32[2, 2, 4]
  %y: f32[2, 2, 4] = aten::gather.default(%x, 2, %i)
  return %y
})");
  ASSERT_TRUE(test::runLegalizePass(*g, "convert-gather-to-gather-nd"));
  auto model = std::make_shared<CircleModel>(test::lowerWithPlugins(*g));
  std::vector<float> x = randomFloats(36, 2);
  std::vector<int32_t> index(16);
  for (std::size_t k = 0; k < index.size(); ++k)
    index[k] = static_cast<int32_t>((k * 5 + 1) % 6);
  auto out = runModel(model, {f32({2, 3, 6}, x), i32({2, 2, 4}, index)});
  std::vector<float> expected(16);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 4; ++c) {
        std::size_t p = static_cast<std::size_t>((a * 2 + b) * 4 + c);
        expected[p] = x[static_cast<std::size_t>((a * 3 + b) * 6 + index[p])];
      }
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexGather, IndexTensorsThatBroadcastTogetherGatherTheMergedDims) {
  // x[i, j] with i [2, 3] and j [3]: out[a][b] = x[i[a][b]][j[b]] (not an outer product).
  auto g = test::parse(R"(graph @main {
  input %x: f32[5, 6]
  input %i: i64[2, 3]
  input %j: i64[3]
  %y: f32[2, 3] = aten::index.Tensor(%x, opt[%i, %j])
  return %y
})");
  auto model = std::make_shared<CircleModel>(test::lower(*g));
  std::vector<std::string> ops = circleOps(*model);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "GATHER"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "GATHER_ND"), 0);
  std::vector<float> x = randomFloats(30, 3);
  std::vector<int64_t> i = {4, 0, 2, 1, 1, 3}, j = {5, 0, 2};
  auto out = runModel(model, {f32({5, 6}, x), i64({2, 3}, i), i64({3}, j)});
  std::vector<float> expected(6);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      expected[static_cast<std::size_t>(a * 3 + b)] =
          x[static_cast<std::size_t>(i[static_cast<std::size_t>(a * 3 + b)] * 6 + j[static_cast<std::size_t>(b)])];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexGather, IndexTensorsAfterASliceKeepTheLeadingDim) {
  // x[:, i, j] with i, j [4]: out [2, 4].
  auto g = test::parse(R"(graph @main {
  input %x: f32[2, 3, 4]
  input %i: i64[4]
  input %j: i64[4]
  %y: f32[2, 4] = aten::index.Tensor(%x, opt[None, %i, %j])
  return %y
})");
  auto model = std::make_shared<CircleModel>(test::lower(*g));
  std::vector<float> x = randomFloats(24, 4);
  std::vector<int64_t> i = {2, 0, 1, 2}, j = {3, 3, 0, 1};
  auto out = runModel(model, {f32({2, 3, 4}, x), i64({4}, i), i64({4}, j)});
  std::vector<float> expected(8);
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < 4; ++k)
      expected[static_cast<std::size_t>(a * 4 + k)] =
          x[static_cast<std::size_t>((a * 3 + i[static_cast<std::size_t>(k)]) * 4 + j[static_cast<std::size_t>(k)])];
  expectFloats(*out.at(0), expected);
}

TEST(LowerIndexGather, RemainderTakesTheDivisorsSign) {
  // torch.remainder(torch.tensor([-4.5, 2., 7., -3.]), 3.0) = [1.5, 2., 1., 0.]
  auto fg = test::parse(R"(graph @main {
  input %x: f32[4]
  %y: f32[4] = aten::remainder.Scalar(%x, 3.0)
  return %y
})");
  auto fm = std::make_shared<CircleModel>(test::lower(*fg));
  EXPECT_EQ(circleOps(*fm), (std::vector<std::string>{"FLOOR_MOD"}));
  expectFloats(*runModel(fm, {f32({4}, {-4.5f, 2.f, 7.f, -3.f})}).at(0), {1.5f, 2.f, 1.f, 0.f});

  // torch.remainder(torch.tensor([-4, 2, 7, -3]), -3) = [-1, -1, -2, 0]
  auto ig = test::parse(R"(graph @main {
  input %x: i64[4]
  %y: i64[4] = aten::remainder.Scalar(%x, -3)
  return %y
})");
  auto im = std::make_shared<CircleModel>(test::lower(*ig));
  expectValues<int64_t>(*runModel(im, {i64({4}, {-4, 2, 7, -3})}).at(0), DType::Int64, {-1, -1, -2, 0});
}

} // namespace
} // namespace tico
