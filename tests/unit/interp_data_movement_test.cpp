// Interpreter: shape and data-movement operators (RESHAPE, EXPAND_DIMS, SQUEEZE, SHAPE, RANK,
// TRANSPOSE, CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V, SLICE, STRIDED_SLICE, GATHER,
// GATHER_ND, PAD, PADV2, MIRROR_PAD, TILE, BROADCAST_TO, FILL, ZEROS_LIKE, RANGE, CUMSUM, CAST).
// Expected values are hand-derived or NumPy results (expression in the comment).
#include "interp_test_support.h"

#include <numeric>

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

std::vector<int32_t> iota32(int32_t n) {
  std::vector<int32_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(InterpReshape, ShapeInputWithMinusOne) {
  auto x = i32({2, 3, 4}, iota32(24));
  auto out = runSingle({B::RESHAPE, {}, {x, i32({2}, {-1, 6})}, DType::Int32}).at(0);
  expectShape(*out, {4, 6});
  expectValues<int32_t>(*out, DType::Int32, iota32(24));
}

TEST(InterpReshape, OptionsShapeWhenNoShapeInput) {
  circle::ReshapeOptionsT options;
  options.new_shape = {3, 8};
  auto out = runSingle({B::RESHAPE, ModelBuilder::options(options), {i32({2, 3, 4}, iota32(24))}, DType::Int32}).at(0);
  expectShape(*out, {3, 8});
}

// What the converter writes for a reshape to a scalar: the shape operand is an int32[0]
// constant, whose buffer is empty since it has no elements. It is a constant all the same.
TEST(InterpReshape, EmptyShapeConstantGivesAScalar) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {1, 1});
  const int32_t shape = b.constant("shape", i32({0}, {}));
  const int32_t y = b.tensor("y", DType::Float32, {});
  b.op(B::RESHAPE, {x, shape}, {y});
  b.output(y);
  auto out = runModel(b.build(), {f32({1, 1}, {2.5f})}).at(0);
  expectShape(*out, {});
  expectValues<float>(*out, DType::Float32, {2.5f});
}

TEST(InterpReshape, WrongElementCountIsAnError) {
  const std::string message =
      errorOf([&] { runSingle({B::RESHAPE, {}, {i32({2, 3}, iota32(6)), i32({2}, {4, 2})}, DType::Int32}); });
  EXPECT_TRUE(contains(message, "RESHAPE")) << message;
  EXPECT_TRUE(contains(message, "cannot reshape [2, 3]")) << message;
}

TEST(InterpReshape, ExpandDimsSqueezeShapeRank) {
  auto x = f32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  expectShape(*runSingle({B::EXPAND_DIMS, {}, {x, i32({}, {-1})}}).at(0), {2, 1, 3, 1});
  expectShape(*runSingle({B::EXPAND_DIMS, {}, {x, i64({1}, {0})}}).at(0), {1, 2, 1, 3});
  expectShape(*runSingle({B::SQUEEZE, {}, {x}}).at(0), {2, 3});
  circle::SqueezeOptionsT squeeze;
  squeeze.squeeze_dims = {-2};
  expectShape(*runSingle({B::SQUEEZE, ModelBuilder::options(squeeze), {x}}).at(0), {2, 3});
  squeeze.squeeze_dims = {0};
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::SQUEEZE, ModelBuilder::options(squeeze), {x}}); }),
                       "size is not 1"));
  expectValues<int32_t>(*runSingle({B::SHAPE, {}, {x}, DType::Int32}).at(0), DType::Int32, {2, 1, 3});
  expectValues<int64_t>(*runSingle({B::SHAPE, {}, {x}, DType::Int64}).at(0), DType::Int64, {2, 1, 3});
  expectValues<int32_t>(*runSingle({B::RANK, {}, {x}, DType::Int32}).at(0), DType::Int32, {3});
}

TEST(InterpTranspose, NchwToNhwcAndBack) {
  // np.arange(24).reshape(1, 2, 3, 4).transpose(0, 2, 3, 1)
  auto x = i32({1, 2, 3, 4}, iota32(24));
  auto nhwc = runSingle({B::TRANSPOSE, {}, {x, i32({4}, {0, 2, 3, 1})}, DType::Int32}).at(0);
  expectShape(*nhwc, {1, 3, 4, 2});
  std::vector<int32_t> expected;
  for (int h = 0; h < 3; ++h)
    for (int w = 0; w < 4; ++w)
      for (int c = 0; c < 2; ++c)
        expected.push_back(c * 12 + h * 4 + w);
  expectValues<int32_t>(*nhwc, DType::Int32, expected);
  auto back = runSingle({B::TRANSPOSE, {}, {nhwc, i32({4}, {0, 3, 1, 2})}, DType::Int32}).at(0);
  expectValues<int32_t>(*back, DType::Int32, iota32(24));
}

TEST(InterpTranspose, GeneralPermutationsAndDtypes) {
  // np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1)
  const std::vector<int32_t> values = iota32(24);
  auto x = i64({2, 3, 4}, std::vector<int64_t>(values.begin(), values.end()));
  auto out = runSingle({B::TRANSPOSE, {}, {x, i32({3}, {2, 0, 1})}, DType::Int64}).at(0);
  expectShape(*out, {4, 2, 3});
  std::vector<int64_t> expected;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        expected.push_back(i * 12 + j * 4 + k);
  expectValues<int64_t>(*out, DType::Int64, expected);
  auto b = boolean({2, 2}, {1, 0, 0, 0});
  expectValues<uint8_t>(*runSingle({B::TRANSPOSE, {}, {b, i32({2}, {1, 0})}, DType::Bool}).at(0), DType::Bool,
                        {1, 0, 0, 0});
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::TRANSPOSE, {}, {x, i32({3}, {0, 0, 1})}, DType::Int64}); }),
                       "not a permutation"));
}

TEST(InterpConcat, ConcatenationAndPack) {
  circle::ConcatenationOptionsT concat;
  concat.axis = -1;
  auto a = f32({2, 1}, {1, 2});
  auto b = f32({2, 2}, {3, 4, 5, 6});
  auto out = runSingle({B::CONCATENATION, ModelBuilder::options(concat), {a, b}}).at(0);
  expectShape(*out, {2, 3});
  expectFloats(*out, {1, 3, 4, 2, 5, 6});
  circle::PackOptionsT pack;
  pack.axis = 1;
  pack.values_count = 2;
  auto packed = runSingle({B::PACK, ModelBuilder::options(pack), {f32({2}, {1, 2}), f32({2}, {3, 4})}}).at(0);
  expectShape(*packed, {2, 2});
  expectFloats(*packed, {1, 3, 2, 4});
  concat.axis = 0;
  const std::string message = errorOf([&] { runSingle({B::CONCATENATION, ModelBuilder::options(concat), {a, b}}); });
  EXPECT_TRUE(contains(message, "[2, 2]")) << message;
}

TEST(InterpSplit, SplitSplitVUnpack) {
  auto x = i32({2, 6}, iota32(12));
  auto parts = runSingle({B::SPLIT, {}, {i32({}, {1}), x}, DType::Int32, {}, 3});
  ASSERT_EQ(parts.size(), 3u);
  expectShape(*parts[1], {2, 2});
  expectValues<int32_t>(*parts[1], DType::Int32, {2, 3, 8, 9});
  auto v = runSingle({B::SPLIT_V, {}, {x, i32({3}, {1, -1, 2}), i32({}, {-1})}, DType::Int32, {}, 3});
  expectValues<int32_t>(*v[0], DType::Int32, {0, 6});
  expectValues<int32_t>(*v[1], DType::Int32, {1, 2, 3, 7, 8, 9});
  expectValues<int32_t>(*v[2], DType::Int32, {4, 5, 10, 11});
  circle::UnpackOptionsT unpack;
  unpack.num = 2;
  unpack.axis = 0;
  auto rows = runSingle({B::UNPACK, ModelBuilder::options(unpack), {x}, DType::Int32, {}, 2});
  expectShape(*rows[1], {6});
  expectValues<int32_t>(*rows[1], DType::Int32, {6, 7, 8, 9, 10, 11});
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::SPLIT, {}, {i32({}, {1}), x}, DType::Int32, {}, 4}); }),
                       "equal parts"));
}

TEST(InterpSlice, SliceWithMinusOneSize) {
  auto x = i32({3, 4}, iota32(12));
  auto out = runSingle({B::SLICE, {}, {x, i32({2}, {1, 1}), i32({2}, {-1, 2})}, DType::Int32}).at(0);
  expectShape(*out, {2, 2});
  expectValues<int32_t>(*out, DType::Int32, {5, 6, 9, 10});
  EXPECT_TRUE(contains(
      errorOf([&] { runSingle({B::SLICE, {}, {x, i32({2}, {2, 0}), i32({2}, {2, 1})}, DType::Int32}); }),
      "reaches outside"));
}

struct StridedCase {
  std::vector<int32_t> begin, end, strides;
  int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  bool offset;
  std::vector<int64_t> shape;
  std::vector<int32_t> values;
};

void checkStrided(const StridedCase &c) {
  const auto n = static_cast<int64_t>(c.begin.size());
  circle::StridedSliceOptionsT o;
  o.begin_mask = c.begin_mask;
  o.end_mask = c.end_mask;
  o.ellipsis_mask = c.ellipsis_mask;
  o.new_axis_mask = c.new_axis_mask;
  o.shrink_axis_mask = c.shrink_mask;
  o.offset = c.offset;
  auto out = runSingle({B::STRIDED_SLICE,
                        ModelBuilder::options(o),
                        {i32({2, 3, 4}, iota32(24)), i32({n}, c.begin), i32({n}, c.end), i32({n}, c.strides)},
                        DType::Int32})
                 .at(0);
  expectShape(*out, c.shape);
  expectValues<int32_t>(*out, DType::Int32, c.values);
}

TEST(InterpStridedSlice, MasksFollowTensorFlow) {
  // x = np.arange(24).reshape(2, 3, 4)
  // x[1:, ::2, -1] -> [[15, 23]]
  checkStrided({{1, 0, -1}, {0, 0, 0}, {1, 2, 1}, 0b010, 0b011, 0, 0, 0b100, false, {1, 2}, {15, 23}});
  // x[:, 2:0:-1, 1::2] -> [[[9, 11], [5, 7]], [[21, 23], [17, 19]]]
  checkStrided({{0, 2, 1}, {0, 0, 0}, {1, -1, 2}, 0b001, 0b101, 0, 0, 0, false, {2, 2, 2}, {9, 11, 5, 7, 21, 23, 17, 19}});
  // x[..., 1] -> [[1, 5, 9], [13, 17, 21]]
  checkStrided({{0, 1}, {0, 2}, {1, 1}, 0, 0, 0b01, 0, 0b10, false, {2, 3}, {1, 5, 9, 13, 17, 21}});
  // x[None, 0, :, 3:] -> shape (1, 3, 1): [[[3], [7], [11]]]
  checkStrided({{0, 0, 0, 3}, {0, 1, 0, 0}, {1, 1, 1, 1}, 0b0100, 0b1100, 0, 0b0001, 0b0010, false, {1, 3, 1}, {3, 7, 11}});
  // x[-1, ..., ::-3] -> [[15, 12], [19, 16], [23, 20]]
  checkStrided({{-1, 0, 0}, {0, 0, 0}, {1, 1, -3}, 0b100, 0b100, 0b010, 0, 0b001, false, {3, 2}, {15, 12, 19, 16, 23, 20}});
  // offset: end is relative to begin: begin (0, 1, 1) + (2, 2, 2) = x[0:2, 1:3, 1:3]
  checkStrided({{0, 1, 1}, {2, 2, 2}, {1, 1, 1}, 0, 0, 0, 0, 0, true, {2, 2, 2}, {5, 6, 9, 10, 17, 18, 21, 22}});
  // Out-of-range bounds clamp like Python: x[0:100, -100:2, 3:1] (empty last dim)
  checkStrided({{0, -100, 3}, {100, 2, 1}, {1, 1, 1}, 0, 0, 0, 0, 0, false, {2, 2, 0}, {}});
}

TEST(InterpStridedSlice, ShrinkOutOfRangeAndZeroStrideAreErrors) {
  circle::StridedSliceOptionsT o;
  o.shrink_axis_mask = 1;
  auto x = i32({2, 3}, iota32(6));
  EXPECT_TRUE(contains(errorOf([&] {
                         runSingle({B::STRIDED_SLICE, ModelBuilder::options(o),
                                    {x, i32({1}, {2}), i32({1}, {3}), i32({1}, {1})}, DType::Int32});
                       }),
                       "index 2 is out of range"));
  EXPECT_TRUE(contains(errorOf([&] {
                         runSingle({B::STRIDED_SLICE, {}, {x, i32({1}, {0}), i32({1}, {1}), i32({1}, {0})}, DType::Int32});
                       }),
                       "stride of dim 0 is 0"));
}

TEST(InterpGather, AxisBatchDimsAndBadIndices) {
  auto params = i32({2, 3}, iota32(6));
  circle::GatherOptionsT o;
  o.axis = 1;
  // np.take(params, [[2, 0]], axis=1) -> shape (2, 1, 2)
  auto out = runSingle({B::GATHER, ModelBuilder::options(o), {params, i64({1, 2}, {2, 0})}, DType::Int32}).at(0);
  expectShape(*out, {2, 1, 2});
  expectValues<int32_t>(*out, DType::Int32, {2, 0, 5, 3});
  // batch_dims 1: row i takes its own indices: [[params[0][1]], [params[1][2]]]
  o.batch_dims = 1;
  auto batched = runSingle({B::GATHER, ModelBuilder::options(o), {params, i32({2, 1}, {1, 2})}, DType::Int32}).at(0);
  expectShape(*batched, {2, 1});
  expectValues<int32_t>(*batched, DType::Int32, {1, 5});
  // Rank-0 index (select.int): params[:, 1]
  o.batch_dims = 0;
  auto picked = runSingle({B::GATHER, ModelBuilder::options(o), {params, i32({}, {1})}, DType::Int32}).at(0);
  expectShape(*picked, {2});
  expectValues<int32_t>(*picked, DType::Int32, {1, 4});
  const std::string message =
      errorOf([&] { runSingle({B::GATHER, ModelBuilder::options(o), {params, i32({1}, {3})}, DType::Int32}); });
  EXPECT_TRUE(contains(message, "index 3 is out of range for dim 1 of size 3")) << message;
  // A rank-0 params tensor has no axis: a clear error, not a bad read.
  circle::GatherOptionsT scalar;
  const std::string rank0 =
      errorOf([&] { runSingle({B::GATHER, ModelBuilder::options(scalar), {i32({}, {7}), i32({1}, {0})}, DType::Int32}); });
  EXPECT_TRUE(contains(rank0, "GATHER needs params of rank 1 or more")) << rank0;
}

TEST(InterpGather, GatherNd) {
  auto params = i32({2, 3, 2}, iota32(12));
  // params[[1, 0], [0, 2]] (pairs of leading indices) -> [[6, 7], [4, 5]]
  auto out = runSingle({B::GATHER_ND, {}, {params, i32({2, 2}, {1, 0, 0, 2})}, DType::Int32}).at(0);
  expectShape(*out, {2, 2});
  expectValues<int32_t>(*out, DType::Int32, {6, 7, 4, 5});
}

TEST(InterpPad, PadPadV2MirrorPad) {
  auto x = f32({2, 2}, {1, 2, 3, 4});
  auto pads = i32({2, 2}, {1, 0, 0, 2});
  auto out = runSingle({B::PAD, {}, {x, pads}}).at(0);
  expectShape(*out, {3, 4});
  expectFloats(*out, {0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0});
  auto v2 = runSingle({B::PADV2, {}, {x, pads, f32({}, {-INFINITY})}}).at(0);
  expectFloats(*v2, {-INFINITY, -INFINITY, -INFINITY, -INFINITY, 1, 2, -INFINITY, -INFINITY, 3, 4, -INFINITY, -INFINITY});
  // np.pad([1, 2, 3], (2, 2), 'reflect') = [3, 2, 1, 2, 3, 2, 1]; 'symmetric' = [2, 1, 1, 2, 3, 3, 2]
  auto row = f32({3}, {1, 2, 3});
  circle::MirrorPadOptionsT mirror;
  mirror.mode = circle::MirrorPadMode::REFLECT;
  expectFloats(*runSingle({B::MIRROR_PAD, ModelBuilder::options(mirror), {row, i32({1, 2}, {2, 2})}}).at(0),
               {3, 2, 1, 2, 3, 2, 1});
  mirror.mode = circle::MirrorPadMode::SYMMETRIC;
  expectFloats(*runSingle({B::MIRROR_PAD, ModelBuilder::options(mirror), {row, i32({1, 2}, {2, 2})}}).at(0),
               {2, 1, 1, 2, 3, 3, 2});
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::PAD, {}, {x, i32({1, 2}, {1, 1})}}); }), "paddings must be [2, 2]"));
}

TEST(InterpBroadcast, TileBroadcastToFillZerosLike) {
  auto x = i32({2, 1}, {1, 2});
  auto tiled = runSingle({B::TILE, {}, {x, i32({2}, {2, 3})}, DType::Int32}).at(0);
  expectShape(*tiled, {4, 3});
  expectValues<int32_t>(*tiled, DType::Int32, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  auto wide = runSingle({B::BROADCAST_TO, {}, {x, i64({3}, {2, 2, 3})}, DType::Int32}).at(0);
  expectShape(*wide, {2, 2, 3});
  expectValues<int32_t>(*wide, DType::Int32, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::BROADCAST_TO, {}, {x, i32({2}, {3, 3})}, DType::Int32}); }),
                       "cannot be broadcast"));
  auto filled = runSingle({B::FILL, {}, {i32({2}, {2, 2}), f32({}, {1.5f})}}).at(0);
  expectFloats(*filled, {1.5f, 1.5f, 1.5f, 1.5f});
  expectFloats(*runSingle({B::ZEROS_LIKE, {}, {f32({3}, {1, 2, 3})}}).at(0), {0, 0, 0});
}

TEST(InterpRange, IntegerAndFloatRanges) {
  // np.arange(1, 10, 3), np.arange(5, 0, -2), np.arange(0, 1, 0.25)
  expectValues<int32_t>(*runSingle({B::RANGE, {}, {i32({}, {1}), i32({}, {10}), i32({}, {3})}, DType::Int32}).at(0),
                        DType::Int32, {1, 4, 7});
  expectValues<int64_t>(*runSingle({B::RANGE, {}, {i64({}, {5}), i64({}, {0}), i64({}, {-2})}, DType::Int64}).at(0),
                        DType::Int64, {5, 3, 1});
  expectFloats(*runSingle({B::RANGE, {}, {f32({}, {0}), f32({}, {1}), f32({}, {0.25f})}}).at(0), {0, 0.25f, 0.5f, 0.75f});
  EXPECT_TRUE(contains(
      errorOf([&] { runSingle({B::RANGE, {}, {i32({}, {0}), i32({}, {1}), i32({}, {0})}, DType::Int32}); }),
      "delta must not be 0"));
}

TEST(InterpCumsum, ExclusiveAndReverse) {
  auto x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  // np.cumsum(x, axis=1) = [[1, 3, 6], [4, 9, 15]]
  expectValues<int32_t>(*runSingle({B::CUMSUM, {}, {x, i32({}, {1})}, DType::Int32}).at(0), DType::Int32,
                        {1, 3, 6, 4, 9, 15});
  circle::CumsumOptionsT o;
  o.exclusive = true;
  o.reverse = true;
  expectValues<int32_t>(*runSingle({B::CUMSUM, ModelBuilder::options(o), {x, i32({}, {1})}, DType::Int32}).at(0),
                        DType::Int32, {5, 3, 0, 11, 6, 0});
  expectFloats(*runSingle({B::CUMSUM, {}, {f32({3, 1}, {0.5f, 1, 2}), i32({}, {0})}}).at(0), {0.5f, 1.5f, 3.5f});
}

TEST(InterpCast, ConversionsFollowPyTorch) {
  // torch.tensor([-1.7, 0.5, 2.9, nan]).to(torch.int32) truncates toward zero; NaN becomes 0 here.
  auto x = f32({4}, {-1.7f, 0.5f, 2.9f, NAN});
  expectValues<int32_t>(*runSingle({B::CAST, {}, {x}, DType::Int32}).at(0), DType::Int32, {-1, 0, 2, 0});
  expectValues<uint8_t>(*runSingle({B::CAST, {}, {x}, DType::Bool}).at(0), DType::Bool, {1, 1, 1, 1});
  expectFloats(*runSingle({B::CAST, {}, {i64({3}, {-3, 0, 1LL << 40})}}).at(0), {-3, 0, 1099511627776.0f});
  expectValues<int64_t>(*runSingle({B::CAST, {}, {boolean({2}, {1, 0})}, DType::Int64}).at(0), DType::Int64, {1, 0});
  // int32 300 -> uint8 wraps to 44, as torch.tensor(300).to(torch.uint8) does
  expectValues<uint8_t>(*runSingle({B::CAST, {}, {i32({1}, {300})}, DType::UInt8}).at(0), DType::UInt8, {44});
  // float32 -> float16 -> float32 round trip of values exactly representable in half precision
  auto half = runSingle({B::CAST, {}, {f32({3}, {1.5f, -2.25f, 65504.0f})}, DType::Float16}).at(0);
  EXPECT_EQ(valuesOf<uint16_t>(*half), (std::vector<uint16_t>{0x3e00, 0xc080, 0x7bff}));
  expectFloats(*runSingle({B::CAST, {}, {half}}).at(0), {1.5f, -2.25f, 65504.0f});
  auto bf16 = runSingle({B::CAST, {}, {f32({2}, {1.0f, -3.0f})}, DType::BFloat16}).at(0);
  EXPECT_EQ(valuesOf<uint16_t>(*bf16), (std::vector<uint16_t>{0x3f80, 0xc040}));
}

} // namespace
} // namespace tico

namespace tico {
namespace {

// DYNAMIC_UPDATE_SLICE: the operand with `update` written as a block at the start indices, each
// start clamped into [0, dim - update_dim] (TFLite's rule). x = arange(24).reshape(2, 3, 4).
TEST(InterpDynamicUpdateSlice, WritesTheBlockAtTheClampedStart) {
  const auto x = test::i32({2, 3, 4}, std::vector<int32_t>(24, 0));
  std::vector<int32_t> ones(6, 1);
  // A [1, 2, 3] block at (1, 1, 1): rows 1..2 of batch 1, columns 1..3.
  auto out = test::runSingle({circle::BuiltinOperator::DYNAMIC_UPDATE_SLICE, {},
                              {x, test::i32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), test::i32({3}, {1, 1, 1})}, DType::Int32})
                 .at(0);
  test::expectValues<int32_t>(*out, DType::Int32,
                              {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   // batch 0 untouched
                               0, 0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6}); // batch 1, rows 1-2, columns 1-3
  // int64 starts past the end are clamped: (5, 9, -2) -> (1, 1, 0); a full-width block is one run.
  out = test::runSingle({circle::BuiltinOperator::DYNAMIC_UPDATE_SLICE, {},
                         {x, test::i32({1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
                          test::tensorOf(DType::Int64, {3}, std::vector<int64_t>{5, 9, -2})},
                         DType::Int32})
            .at(0);
  test::expectValues<int32_t>(*out, DType::Int32,
                              {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
}

TEST(InterpDynamicUpdateSlice, AnUpdateLargerThanTheOperandIsAnError) {
  EXPECT_THROW(test::runSingle({circle::BuiltinOperator::DYNAMIC_UPDATE_SLICE, {},
                                {test::i32({2}, {0, 0}), test::i32({3}, {1, 2, 3}), test::i32({1}, {0})}, DType::Int32}),
               Error);
}

} // namespace
} // namespace tico
