// What the interpreter does once, when it prepares a model, with a DEQUANTIZE of a constant
// (weight-only quantization): the FULLY_CONNECTED and GATHER operators reading it are pointed at
// the integer codes (no float copy of the weights), other readers get it folded into a constant.
#include "interp_quant_test_support.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(InterpPrepare, AFullyConnectedReadsTheCodesOfItsDequantizedWeights) {
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

// The weight-only FULLY_CONNECTED against the product with the dequantized weights in double:
// uint8 / int8 / packed uint4 codes per channel or per tensor, one row (a decode step's vector
// products) and 9 rows (blocks of dequantized rows through the float product), 70 units (more
// than one block of 64), a depth with a vector body and a tail, a bias and a fused RELU.
TEST(InterpPrepare, WeightOnlyFullyConnectedEqualsTheDequantizedProduct) {
  struct Case {
    DType codes;
    bool four_bit, per_channel;
  };
  const int64_t units = 70, depth = 37;
  for (const Case c : {Case{DType::UInt8, false, true}, Case{DType::Int8, false, false}, Case{DType::UInt8, true, true}})
    for (int64_t rows : {1, 9}) {
      SCOPED_TRACE(std::string(dtypeName(c.codes)) + (c.four_bit ? " 4-bit" : "") + ", rows " + std::to_string(rows));
      const int64_t lo = c.four_bit ? 0 : lowest(c.codes), hi = c.four_bit ? 15 : highest(c.codes);
      QParams wq{{}, {}, 0};
      for (int64_t u = 0; u < (c.per_channel ? units : 1); ++u) {
        wq.scale.push_back(0.01f * static_cast<float>(1 + u % 5));
        wq.zero_point.push_back(c.codes == DType::Int8 ? 0 : lo + (u * 3) % (hi - lo + 1));
      }
      const auto w_codes = randomCodes(static_cast<std::size_t>(units * depth), lo, hi, 5);
      std::vector<float> x_values(static_cast<std::size_t>(rows * depth)), bias(static_cast<std::size_t>(units));
      for (std::size_t i = 0; i < x_values.size(); ++i)
        x_values[i] = std::sin(0.37f * static_cast<float>(i));
      for (std::size_t u = 0; u < bias.size(); ++u)
        bias[u] = 0.1f * static_cast<float>(u % 7) - 0.3f;
      ModelBuilder b;
      const int32_t x = b.input("x", DType::Float32, {static_cast<int32_t>(rows), static_cast<int32_t>(depth)});
      const int32_t w = c.four_bit ? qconst4(b, "w", false, {units, depth}, w_codes, wq)
                                   : qconst(b, "w", c.codes, {units, depth}, w_codes, wq);
      const int32_t wf = b.tensor("w_float", DType::Float32, {static_cast<int32_t>(units), static_cast<int32_t>(depth)});
      const int32_t bt = b.constant("bias", tensorOf(DType::Float32, {units}, bias));
      const int32_t y = b.tensor("y", DType::Float32, {static_cast<int32_t>(rows), static_cast<int32_t>(units)});
      b.op(B::DEQUANTIZE, {w}, {wf});
      circle::FullyConnectedOptionsT options;
      options.fused_activation_function = circle::ActivationFunctionType::RELU;
      b.op(B::FULLY_CONNECTED, {x, wf, bt}, {y}, ModelBuilder::options(options));
      b.output(y);
      std::vector<OperatorTime> times;
      CircleInterpreter interpreter(b.build());
      const auto out = interpreter.run({tensorOf(DType::Float32, {rows, depth}, x_values)}, 0, times);
      ASSERT_EQ(times.size(), 1u); // the DEQUANTIZE never runs
      const auto got = valuesOf<float>(*out[0]);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t u = 0; u < units; ++u) {
          double sum = bias[static_cast<std::size_t>(u)];
          for (int64_t k = 0; k < depth; ++k)
            sum += static_cast<double>(x_values[static_cast<std::size_t>(r * depth + k)]) *
                   real(w_codes[static_cast<std::size_t>(u * depth + k)], wq, static_cast<std::size_t>(u));
          EXPECT_NEAR(got[static_cast<std::size_t>(r * units + u)], std::max(sum, 0.0), 1e-5 * (1 + std::fabs(sum)))
              << "row " << r << " unit " << u;
        }
    }
}

// An embedding stored as uint8 codes per row: GATHER reads the rows it picks and dequantizes them.
TEST(InterpPrepare, WeightOnlyGatherDequantizesThePickedRows) {
  ModelBuilder b;
  const int32_t table = qconst(b, "table", DType::UInt8, {4, 3}, {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110},
                               {{0.5f, 1.0f, 0.25f, 2.0f}, {10, 0, 80, 100}, 0});
  const int32_t tf = b.tensor("table_float", DType::Float32, {4, 3});
  const int32_t ids = b.input("ids", DType::Int32, {2, 2});
  const int32_t y = b.tensor("y", DType::Float32, {2, 2, 3});
  b.op(B::DEQUANTIZE, {table}, {tf});
  b.op(B::GATHER, {tf, ids}, {y}, ModelBuilder::options(circle::GatherOptionsT{}));
  b.output(y);
  CircleInterpreter interpreter(b.build());
  std::vector<OperatorTime> times;
  const auto out = interpreter.run({tensorOf(DType::Int32, {2, 2}, std::vector<int32_t>{3, 0, 1, 3})}, 0, times);
  ASSERT_EQ(times.size(), 1u);
  expectFloats(*out[0], {-20, 0, 20, -5, 0, 5, 30, 40, 50, -20, 0, 20});
  EXPECT_THROW(
      {
        try {
          interpreter.run({tensorOf(DType::Int32, {2, 2}, std::vector<int32_t>{0, 4, 1, 2})});
        } catch (const Error &e) {
          EXPECT_NE(std::string(e.what()).find("index 4 is out of range for dim 0 of size 4"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
}

// A DEQUANTIZE another kind of operator also reads is folded: every reader sees the floats.
TEST(InterpPrepare, ADequantizeReadByOtherOperatorsIsFolded) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {1, 3});
  const int32_t w = qconst(b, "w", DType::UInt8, {2, 3}, {10, 20, 30, 200, 100, 0}, {{0.5f, 0.25f}, {20, 100}, 0});
  const int32_t wf = b.tensor("w_float", DType::Float32, {2, 3});
  const int32_t y = b.tensor("y", DType::Float32, {1, 2});
  const int32_t z = b.tensor("z", DType::Float32, {2, 3});
  b.op(B::DEQUANTIZE, {w}, {wf});
  b.op(B::FULLY_CONNECTED, {x, wf, -1}, {y}, ModelBuilder::options(circle::FullyConnectedOptionsT{}));
  b.op(B::ADD, {wf, wf}, {z}, ModelBuilder::options(circle::AddOptionsT{}));
  b.output(y);
  b.output(z);
  CircleInterpreter interpreter(b.build());
  std::vector<OperatorTime> times;
  const auto out = interpreter.run({f32({1, 3}, {1, 2, 3})}, 0, times);
  ASSERT_EQ(times.size(), 2u); // FULLY_CONNECTED and ADD; the DEQUANTIZE was folded
  expectFloats(*out[0], {10, -50});
  expectFloats(*out[1], {-10, 0, 10, 50, 0, -50});
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
