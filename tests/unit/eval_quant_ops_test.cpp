// The evaluator's own kernels of the quantized_decomposed quantize/dequantize ops
// (plugins/aten-eval/backend/quant_ops.cpp). Expected values are computed by hand from
// PyTorch's definition: q = clamp(round_half_even(x / scale) + zero_point, lo, hi),
// x' = (q - zero_point) * scale. tests/quant/test_quant_eval.py checks the same kernels
// bit for bit against eager PyTorch on exported programs.
#include "pt2/torch_op_table.h"
#include "eval_test_support.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

namespace tico {
namespace {

using namespace evaltest;

class EvalQuantOps : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }
  const Evaluator &evaluator() const { return *atenEval()->evaluator; }

  std::shared_ptr<const TensorData> run(const Node &node) {
    EXPECT_TRUE(evaluator().canEvaluate(node)) << node.op().str();
    std::vector<EvalValue> out = evaluator().evaluate(node, env);
    EXPECT_EQ(out.size(), 1u);
    return out.at(0).tensor;
  }
  Value *input(const std::string &name, DType dtype, Shape shape, std::shared_ptr<const TensorData> data) {
    Value *v = g.addInput(InputKind::User, name, dtype, std::move(shape));
    env[v] = {std::move(data), std::nullopt};
    return v;
  }
  template <typename T> static std::shared_ptr<const TensorData> of(DType dtype, std::vector<int64_t> sizes, std::vector<T> v) {
    return std::make_shared<TensorData>(TensorData::fromVector(dtype, std::move(sizes), v));
  }

  Graph g{&tico::pt2::torchOpSchemas()};
  EvalEnv env;
};

TEST_F(EvalQuantOps, PerTensorRoundsHalfToEvenAndClamps) {
  // x / 0.5 = -3, -1, 1, 3, 5, 7, 600: halves of odd numbers round to the even neighbour.
  Value *x = input("x", DType::Float32, {7}, f32({7}, {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 300.0f}));
  Node *q = g.createNode(op("quantized_decomposed::quantize_per_tensor.default"),
                         {Argument::value(x), Argument::real(1.0), Argument::integer(3), Argument::integer(0),
                          Argument::integer(255), Argument::scalarType(DType::UInt8)},
                         DType::UInt8, {7});
  auto r = run(*q);
  ASSERT_EQ(r->dtype, DType::UInt8);
  // round(-1.5) = -2, round(-0.5) = -0, round(0.5) = 0, round(1.5) = 2, round(2.5) = 2,
  // round(3.5) = 4, 300 -> clamped; then + 3.
  EXPECT_EQ(valuesOf<uint8_t>(*r), (std::vector<uint8_t>{1, 3, 3, 5, 5, 7, 255}));

  env[q->output()] = {r, std::nullopt};
  Node *dq = g.createNode(op("quantized_decomposed::dequantize_per_tensor.default"),
                          {Argument::value(q->output()), Argument::real(0.25), Argument::integer(3),
                           Argument::integer(0), Argument::integer(255), Argument::scalarType(DType::UInt8)},
                          DType::Float32, {7});
  auto d = run(*dq);
  ASSERT_EQ(d->dtype, DType::Float32);
  EXPECT_EQ(valuesOf<float>(*d), (std::vector<float>{-0.5f, 0.0f, 0.0f, 0.5f, 0.5f, 1.0f, 63.0f}));
}

TEST_F(EvalQuantOps, TensorQParamOverloadsReadTheOneElement) {
  Value *x = input("x", DType::Float32, {3}, f32({3}, {-1.0f, 0.2f, 1.0f}));
  Value *s = input("s", DType::Float32, {}, f32({}, {0.1f}));
  Value *z = input("z", DType::Int64, {}, i64({}, {-2}));
  Node *q = g.createNode(op("quantized_decomposed::quantize_per_tensor.tensor"),
                         {Argument::value(x), Argument::value(s), Argument::value(z), Argument::integer(-8),
                          Argument::integer(7), Argument::scalarType(DType::Int8)},
                         DType::Int8, {3});
  // -1 / 0.1 = -10 -> -12 -> clamped to -8; 0.2 / 0.1 = 2 -> 0; 10 - 2 = 8 -> 7.
  EXPECT_EQ(valuesOf<int8_t>(*run(*q)), (std::vector<int8_t>{-8, 0, 7}));
}

TEST_F(EvalQuantOps, PerChannelAlongAnAxis) {
  // A [2, 3] tensor quantized along axis 1 (three channels) and back.
  Value *x = input("x", DType::Float32, {2, 3}, f32({2, 3}, {1.0f, 1.0f, 1.0f, -2.0f, 3.0f, 100.0f}));
  Value *s = input("s", DType::Float32, {3}, f32({3}, {0.5f, 0.25f, 1.0f}));
  Value *z = input("z", DType::Int32, {3}, of<int32_t>(DType::Int32, {3}, {0, 1, -1}));
  Node *q = g.createNode(op("quantized_decomposed::quantize_per_channel.default"),
                         {Argument::value(x), Argument::value(s), Argument::value(z), Argument::integer(1),
                          Argument::integer(-128), Argument::integer(127), Argument::scalarType(DType::Int8)},
                         DType::Int8, {2, 3});
  auto r = run(*q);
  EXPECT_EQ(valuesOf<int8_t>(*r), (std::vector<int8_t>{2, 5, 0, -4, 13, 99}));
  env[q->output()] = {r, std::nullopt};
  Node *dq = g.createNode(op("quantized_decomposed::dequantize_per_channel.default"),
                          {Argument::value(q->output()), Argument::value(s), Argument::value(z), Argument::integer(-1),
                           Argument::integer(-128), Argument::integer(127), Argument::scalarType(DType::Int8)},
                          DType::Float32, {2, 3});
  EXPECT_EQ(valuesOf<float>(*run(*dq)), (std::vector<float>{1.0f, 1.0f, 1.0f, -2.0f, 3.0f, 100.0f}));
}

TEST_F(EvalQuantOps, RefusesWhatPyTorchRefuses) {
  Value *x = input("x", DType::Float32, {2}, f32({2}, {1.0f, 2.0f}));
  // A range wider than the storage dtype.
  Node *wide = g.createNode(op("quantized_decomposed::quantize_per_tensor.default"),
                            {Argument::value(x), Argument::real(1.0), Argument::integer(0), Argument::integer(0),
                             Argument::integer(300), Argument::scalarType(DType::UInt8)},
                            DType::UInt8, {2}, nullptr, "wide");
  // A dequantize whose input is not of the dtype it names.
  Node *mismatch = g.createNode(op("quantized_decomposed::dequantize_per_tensor.default"),
                                {Argument::value(x), Argument::real(1.0), Argument::integer(0), Argument::integer(0),
                                 Argument::integer(255), Argument::scalarType(DType::UInt8)},
                                DType::Float32, {2}, nullptr, "mismatch");
  for (auto [node, message] : {std::pair{wide, "quantization range [0, 300] is outside the range of Byte"},
                               std::pair{mismatch, "expects an input of dtype Byte, got Float"}}) {
    try {
      evaluator().evaluate(*node, env);
      FAIL() << "expected an error for " << node->name();
    } catch (const Error &e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("node '" + node->name() + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(message), std::string::npos) << what;
    }
  }
}

} // namespace
} // namespace tico
