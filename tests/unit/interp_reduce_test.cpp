// Interpreter: reductions, ARG_MAX/ARG_MIN, SOFTMAX/LOG_SOFTMAX, QUANTIZE/DEQUANTIZE.
// References: PyTorch values (expression in the comment) or hand computation.
#include "interp_test_support.h"

#include <numeric>

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

TensorPtr arange24() {
  std::vector<float> v(24);
  std::iota(v.begin(), v.end(), 0.0f);
  return f32({2, 3, 4}, v);
}

circle::BuiltinOptionsUnion keepDims(bool keep) {
  circle::ReducerOptionsT o;
  o.keep_dims = keep;
  return ModelBuilder::options(o);
}

TEST(InterpReduce, MeanSumMaxMinOverAxisSets) {
  // y = torch.arange(24.).reshape(2, 3, 4)
  auto mean = runSingle({B::MEAN, keepDims(false), {arange24(), i32({2}, {0, -1})}}).at(0);
  expectShape(*mean, {3});
  expectFloats(*mean, {7.5f, 11.5f, 15.5f}); // y.mean(dim=(0, 2))
  auto sum = runSingle({B::SUM, keepDims(true), {arange24(), i64({2}, {2, 0})}}).at(0);
  expectShape(*sum, {1, 3, 1});
  expectFloats(*sum, {60, 92, 124});
  auto max = runSingle({B::REDUCE_MAX, keepDims(false), {arange24(), i32({1}, {1})}}).at(0);
  expectFloats(*max, {8, 9, 10, 11, 20, 21, 22, 23}); // y.amax(dim=1)
  auto min = runSingle({B::REDUCE_MIN, keepDims(false), {arange24(), i32({2}, {1, 0})}}).at(0);
  expectFloats(*min, {0, 1, 2, 3}); // y.amin(dim=(0, 1))
  auto prod = runSingle({B::REDUCE_PROD, keepDims(false), {f32({2, 2}, {1, 2, 3, 4}), i32({1}, {1})}}).at(0);
  expectFloats(*prod, {2, 12});
}

TEST(InterpReduce, RepeatedAxesCountOnceAndIntegersStayExact) {
  auto x = i64({2, 2}, {int64_t{1} << 40, 1, 2, 3});
  expectValues<int64_t>(*runSingle({B::SUM, keepDims(false), {x, i32({3}, {0, -2, 0})}, DType::Int64}).at(0),
                        DType::Int64, {(int64_t{1} << 40) + 2, 4});
  expectValues<int32_t>(
      *runSingle({B::REDUCE_MAX, keepDims(false), {i32({3}, {-5, 7, 2}), i32({1}, {0})}, DType::Int32}).at(0),
      DType::Int32, {7});
}

TEST(InterpReduce, AnyAndAll) {
  auto b = boolean({2, 3}, {0, 1, 0, 1, 1, 1});
  expectValues<uint8_t>(*runSingle({B::REDUCE_ANY, keepDims(false), {b, i32({1}, {1})}, DType::Bool}).at(0),
                        DType::Bool, {1, 1});
  expectValues<uint8_t>(*runSingle({B::REDUCE_ALL, keepDims(false), {b, i32({1}, {1})}, DType::Bool}).at(0),
                        DType::Bool, {0, 1});
}

TEST(InterpReduce, BadAxisNamesTheOperator) {
  const std::string message = errorOf([&] { runSingle({B::MEAN, keepDims(false), {arange24(), i32({1}, {3})}}); });
  EXPECT_TRUE(contains(message, "operator #0 (MEAN)")) << message;
  EXPECT_TRUE(contains(message, "axis 3 is out of range for rank 3")) << message;
}

TEST(InterpArgMax, FirstIndexWinsAndOutputTypeIsDeclared) {
  auto x = f32({2, 4}, {1, 7, 7, 2, 5, -1, 5, 0});
  expectValues<int64_t>(*runSingle({B::ARG_MAX, {}, {x, i32({}, {1})}, DType::Int64}).at(0), DType::Int64, {1, 0});
  expectValues<int32_t>(*runSingle({B::ARG_MIN, {}, {x, i64({1}, {-1})}, DType::Int32}).at(0), DType::Int32, {0, 1});
  expectValues<int64_t>(*runSingle({B::ARG_MAX, {}, {x, i32({}, {0})}, DType::Int64}).at(0), DType::Int64,
                        {1, 0, 0, 0});
  // torch.argmax treats NaN as the maximum
  expectValues<int64_t>(*runSingle({B::ARG_MAX, {}, {f32({3}, {1, NAN, 9}), i32({}, {0})}, DType::Int64}).at(0),
                        DType::Int64, {1});
}

TEST(InterpTopK, LargestFirstEqualValuesInIndexOrder) {
  // torch.topk(x, 3) on each row: values descending, ties in index order.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 5});
  int32_t k = b.constant("k", i32({}, {3}));
  int32_t values = b.tensor("values", DType::Float32, {2, 3});
  int32_t indices = b.tensor("indices", DType::Int32, {2, 3});
  b.op(B::TOPK_V2, {x, k}, {values, indices});
  b.output(values);
  b.output(indices);
  auto out = runModel(b.build(), {f32({2, 5}, {1, 7, 3, 7, -2, 0, -1, 0, 5, 0})});
  expectFloats(*out.at(0), {7, 7, 3, 5, 0, 0});
  expectValues<int32_t>(*out.at(1), DType::Int32, {1, 3, 2, 3, 0, 2});
  // k larger than the axis is an error naming it.
  ModelBuilder bad;
  int32_t bx = bad.input("x", DType::Float32, {4});
  int32_t bk = bad.constant("k", i32({}, {5}));
  int32_t bv = bad.tensor("v", DType::Float32, {5});
  int32_t bi = bad.tensor("i", DType::Int32, {5});
  bad.op(B::TOPK_V2, {bx, bk}, {bv, bi});
  bad.output(bv);
  bad.output(bi);
  const std::string message = errorOf([&] { runModel(bad.build(), {f32({4}, {1, 2, 3, 4})}); });
  EXPECT_TRUE(contains(message, "k = 5 is outside [0, 4]")) << message;
}

TEST(InterpSoftmax, SoftmaxWithBetaAndLogSoftmax) {
  auto x = f32({2, 3}, {1, 2, 3, -1, 0.5f, 4});
  circle::SoftmaxOptionsT options;
  options.beta = 1.0f;
  // torch.softmax(x, -1)
  expectFloats(*runSingle({B::SOFTMAX, ModelBuilder::options(options), {x}}).at(0),
               {0.0900305733f, 0.2447284758f, 0.6652409434f, 0.0064979433f, 0.0291217621f, 0.9643803239f});
  options.beta = 0.5f;
  // torch.softmax(x * 0.5, -1)
  expectFloats(*runSingle({B::SOFTMAX, ModelBuilder::options(options), {x}}).at(0),
               {0.1863237321f, 0.3071959019f, 0.5064803958f, 0.0653616413f, 0.1383706033f, 0.7962678075f});
  // torch.log_softmax(x, -1)
  expectFloats(*runSingle({B::LOG_SOFTMAX, {}, {x}}).at(0),
               {-2.4076058865f, -1.4076058865f, -0.4076059461f, -5.0362696648f, -3.5362696648f, -0.0362695642f});
}

TEST(InterpSoftmax, LargeValuesDoNotOverflow) {
  circle::SoftmaxOptionsT options;
  options.beta = 1.0f;
  expectFloats(*runSingle({B::SOFTMAX, ModelBuilder::options(options), {f32({2}, {1000, 1000})}}).at(0), {0.5f, 0.5f});
}

TEST(InterpQuantize, PerTensorQuantizeAndPerChannelDequantize) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {4});
  const int32_t q = b.tensor("q", DType::Int8, {4});
  auto params = std::make_shared<circle::QuantizationParametersT>();
  params->scale = {0.5f};
  params->zero_point = {1};
  b.model().subgraphs[0].tensors[static_cast<std::size_t>(q)].quantization = params;
  const int32_t y = b.tensor("y", DType::Float32, {4});
  b.op(B::QUANTIZE, {x}, {q});
  b.op(B::DEQUANTIZE, {q}, {y});
  b.output(q);
  b.output(y);
  // q = clamp(round(x / 0.5) + 1, -128, 127): 1.25 -> round(2.5) = 3 (half away from zero) + 1
  auto out = runModel(b.build(), {f32({4}, {1.25f, -1.0f, 100.0f, -100.0f})});
  expectValues<int8_t>(*out[0], DType::Int8, {4, -1, 127, -128});
  expectFloats(*out[1], {1.5f, -1.0f, 63.0f, -64.5f});

  ModelBuilder c;
  const int32_t w = c.input("w", DType::Int8, {2, 2});
  auto channels = std::make_shared<circle::QuantizationParametersT>();
  channels->scale = {0.5f, 2.0f};
  channels->zero_point = {0, 1};
  channels->quantized_dimension = 0;
  c.model().subgraphs[0].tensors[static_cast<std::size_t>(w)].quantization = channels;
  const int32_t f = c.tensor("f", DType::Float32, {2, 2});
  c.op(B::DEQUANTIZE, {w}, {f});
  c.output(f);
  expectFloats(*runModel(c.build(), {tensorOf<int8_t>(DType::Int8, {2, 2}, {2, -2, 3, 0})})[0], {1, -1, 4, -2});
}

TEST(InterpQuantize, QuantizedOperatorWithoutAQuantizedKernelIsReportedAtConstruction) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::UInt8, {2});
  auto params = std::make_shared<circle::QuantizationParametersT>();
  params->scale = {0.1f};
  params->zero_point = {128};
  b.model().subgraphs[0].tensors[static_cast<std::size_t>(x)].quantization = params;
  const int32_t y = b.tensor("y", DType::UInt8, {2});
  b.model().subgraphs[0].tensors[static_cast<std::size_t>(y)].quantization = params;
  b.op(B::DIV, {x, x}, {y}); // quantized ADD/SUB/MUL exist; DIV does not
  b.output(y);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "DIV x1")) << message;
  EXPECT_TRUE(contains(message, "no quantized kernel")) << message;
}

} // namespace
} // namespace tico
