// What the interpreter computes once, when it prepares a model: a DEQUANTIZE of a constant
// (weight-only quantization) becomes a constant of every run.
#include "interp_quant_test_support.h"

#include <gtest/gtest.h>

namespace tico {
namespace {

using namespace test;
using namespace test::quant;
using B = circle::BuiltinOperator;

// y = FULLY_CONNECTED(x, DEQUANTIZE(w codes)): per-channel uint8 weights, float activations.
std::shared_ptr<const CircleModel> weightOnlyLinear() {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2, 3});
  const int32_t w = qconst(b, "w", DType::UInt8, {2, 3}, {10, 20, 30, 200, 100, 0}, {{0.5f, 0.25f}, {20, 100}, 0});
  const int32_t wf = b.tensor("w_float", DType::Float32, {2, 3});
  const int32_t y = b.tensor("y", DType::Float32, {2, 2});
  b.op(B::DEQUANTIZE, {w}, {wf});
  b.op(B::FULLY_CONNECTED, {x, wf, -1}, {y}, ModelBuilder::options(circle::FullyConnectedOptionsT{}));
  b.output(y);
  return b.build();
}

TEST(InterpPrepare, DequantizeOfAConstantRunsOnceWhenTheModelIsPrepared) {
  CircleInterpreter interpreter(weightOnlyLinear());
  const auto x = f32({2, 3}, {1, 2, 3, -1, 0, 1});
  for (int run = 0; run < 2; ++run) {
    std::vector<OperatorTime> times;
    const auto out = interpreter.run({x}, 0, times);
    // Only the FULLY_CONNECTED runs; the weights are (codes - zero point) * scale per row:
    // row 0 = [-5, 0, 5], row 1 = [25, 0, -25].
    ASSERT_EQ(times.size(), 1u);
    EXPECT_EQ(times[0].op, "FULLY_CONNECTED");
    expectFloats(*out[0], {10, -50, 10, -50});
  }
}

TEST(InterpPrepare, AFoldedDequantizeMayBeTheModelOutput) {
  ModelBuilder b;
  const int32_t w = qconst(b, "w", DType::Int8, {3}, {-4, 0, 6}, {{0.5f}, {0}});
  const int32_t wf = b.tensor("w_float", DType::Float32, {3});
  b.op(B::DEQUANTIZE, {w}, {wf});
  b.output(wf);
  CircleInterpreter interpreter(b.build());
  const auto out = interpreter.run({});
  expectFloats(*out[0], {-2, 0, 3});
}

} // namespace
} // namespace tico
