// SCATTER_ND kernel: zeros of the given shape with updates added at their index tuples.
#include "interp_test_support.h"

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

circle::BuiltinOptionsUnion scatterOptions() {
  circle::BuiltinOptionsUnion u;
  u.Set(circle::ScatterNdOptionsT{});
  return u;
}

TEST(InterpScatterNd, RowsAreWrittenAndDuplicatesSummed) {
  // indices [[2], [0], [2]] write rows of updates [3, 2] into [4, 2]; row 2 gets two.
  auto out = runSingle({B::SCATTER_ND, scatterOptions(),
                        {i32({3, 1}, {2, 0, 2}), f32({3, 2}, {1, 2, 3, 4, 10, 20}), i32({2}, {4, 2})}});
  expectShape(*out.at(0), {4, 2});
  expectFloats(*out.at(0), {3, 4, 0, 0, 11, 22, 0, 0});
}

TEST(InterpScatterNd, FullIndexTuplesWriteElements) {
  // int64 indices of length 2 into a [2, 3] int32 result.
  auto out = runSingle({B::SCATTER_ND, scatterOptions(),
                        {i64({2, 2}, {1, 2, 0, 0}), i32({2}, {7, -5}), i64({2}, {2, 3})}, DType::Int32});
  expectValues<int32_t>(*out.at(0), DType::Int32, {-5, 0, 0, 0, 0, 7});
}

TEST(InterpScatterNd, AnIndexOutsideTheShapeIsAnError) {
  std::string message = errorOf([&] {
    runSingle({B::SCATTER_ND, scatterOptions(), {i32({1, 1}, {4}), f32({1, 2}, {1, 2}), i32({2}, {4, 2})}});
  });
  EXPECT_TRUE(contains(message, "index 4 is out of range for dim 0 of size 4")) << message;
}

TEST(InterpScatterNd, UpdatesOfTheWrongShapeAreAnError) {
  std::string message = errorOf([&] {
    runSingle({B::SCATTER_ND, scatterOptions(), {i32({2, 1}, {0, 1}), f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({2}, {4, 2})}});
  });
  EXPECT_TRUE(contains(message, "do not match")) << message;
}

} // namespace
} // namespace tico
