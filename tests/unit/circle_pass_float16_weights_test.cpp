// Golden tests of store-float16-weights: float32 constants widened from float16 or bfloat16
// storage (the dtype policy's weights) become FLOAT16 + DEQUANTIZE with the same outputs on the
// interpreter (whose FULLY_CONNECTED and GATHER read the float16 weights in place); tied views
// share one FLOAT16 buffer; plain float32 constants are not touched, and bfloat16 weights beyond
// float16's range stay float32 (kept by the pass with scan_range, else by the writer's fallback); the options turn the pass or its bfloat16 part off; a second run changes
// nothing.
#include "circle_pass_test_support.h"

#include "tico/circle/reader.h"
#include "tico/circle/writer.h"
#include "tico/support/half.h"

#include <cmath>
#include <cstdio>

#include <set>

namespace tico::test {
namespace {

using circle::BuiltinOperator;

// A float32 view of 16-bit `bits` of type `dtype` (the dtype policy's widened weights).
TensorPtr widened(DType dtype, std::vector<int64_t> shape, const std::vector<uint16_t> &bits) {
  auto source = TensorData::fromVector(dtype, shape, bits);
  auto view = std::make_shared<TensorData>(source);
  view->storage = Storage::widenedToFloat32(source.storage, dtype);
  view->dtype = DType::Float32;
  return view;
}

TensorPtr widenedFloat16(std::vector<int64_t> shape, const std::vector<uint16_t> &half_bits) {
  return widened(DType::Float16, std::move(shape), half_bits);
}

// x + k for one constant k; the model and k's tensor index.
std::pair<CircleModel, int32_t> addConstant(TensorPtr k_data) {
  ModelBuilder b;
  const std::vector<int32_t> shape(k_data->sizes.begin(), k_data->sizes.end());
  int32_t x = b.input("x", DType::Float32, shape);
  int32_t k = b.constant("k", std::move(k_data));
  int32_t y = b.tensor("y", DType::Float32, shape);
  b.op(BuiltinOperator::ADD, {x, k}, {y}, addOptions());
  b.output(y);
  return {b.model(), k};
}

TEST(CirclePassStoreFloat16Weights, WidenedFloat16WeightsBecomeFloat16PlusDequantize) {
  // 1.5, -2, 0.25, 65504, 2^-24, 3 in float16.
  TensorPtr tied = widenedFloat16({2, 3}, {0x3e00, 0xc000, 0x3400, 0x7bff, 0x0001, 0x4200});
  auto bf16 = TensorData::fromVector(DType::BFloat16, {2, 3}, std::vector<uint16_t>{0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0});
  auto bf16_view = std::make_shared<TensorData>(bf16);
  bf16_view->storage = Storage::widenedToFloat32(bf16.storage, DType::BFloat16);
  bf16_view->dtype = DType::Float32;

  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t w1 = b.constant("w1", tied);
  const int32_t w2 = b.tensor("w2", DType::Float32, {2, 3}); // a second tensor on w1's buffer
  b.model().subgraphs[0].tensors[w2].buffer = b.model().subgraphs[0].tensors[w1].buffer;
  int32_t kb = b.constant("kb", bf16_view);
  int32_t kp = b.constant("kp", f32({2, 3}, {1, 2, 3, 4, 5, 6}));
  int32_t a = b.tensor("a", DType::Float32, {2, 3});
  int32_t c = b.tensor("c", DType::Float32, {2, 3});
  int32_t d = b.tensor("d", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::MUL, {x, w1}, {a}, mulOptions());
  b.op(BuiltinOperator::ADD, {a, w2}, {c}, addOptions());
  b.op(BuiltinOperator::ADD, {c, kb}, {d}, addOptions());
  b.op(BuiltinOperator::ADD, {d, kp}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  const uint32_t wide_buffer = m.subgraphs[0].tensors[w1].buffer;

  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "store-float16-weights")); }, 0.0);

  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 3u);
  const auto dequantizes = opsOf(m, BuiltinOperator::DEQUANTIZE);
  std::set<uint32_t> half_buffers;
  for (const CircleOperator *op : dequantizes) {
    const CircleTensor &stored = tensorAt(m, op->inputs[0]);
    EXPECT_EQ(stored.type, circle::TensorType::FLOAT16);
    EXPECT_EQ(stored.shape, (std::vector<int32_t>{2, 3}));
    half_buffers.insert(stored.buffer);
    EXPECT_EQ(tensorAt(m, op->outputs[0]).buffer, 0u) << "the float32 tensor is computed now";
  }
  ASSERT_EQ(half_buffers.size(), 2u) << "tied tensors share one FLOAT16 buffer; the bfloat16 weight has its own";
  const auto &payload = m.buffers[*half_buffers.begin()].data;
  EXPECT_EQ(payload->dtype, DType::Float16);
  EXPECT_EQ(payload->nbytes(), 12u);
  EXPECT_EQ(m.buffers[wide_buffer].data, nullptr) << "the widened float32 payload is no longer written";
  EXPECT_EQ(tensorAt(m, kb).buffer, 0u) << "the bfloat16 weight is computed from its FLOAT16 copy";
  EXPECT_EQ(tensorAt(m, kp).type, circle::TensorType::FLOAT32) << "plain float32 constants stay";
  EXPECT_NE(tensorAt(m, kp).buffer, 0u);
  EXPECT_FALSE(runCirclePass(m, "store-float16-weights"));
}

TEST(CirclePassStoreFloat16Weights, BFloat16WeightsBeyondFloat16sRangeStayFloat32WithTheScan) {
  // 1.0 and -65536 (0xc780): float16 would make the latter -inf.
  auto [m, k] = addConstant(widened(DType::BFloat16, {2}, {0x3f80, 0xc780}));
  EXPECT_FALSE(runCirclePass(m, "store-float16-weights", {{"scan_range", true}}));
  EXPECT_EQ(tensorAt(m, k).type, circle::TensorType::FLOAT32);
  EXPECT_NE(tensorAt(m, k).buffer, 0u);
  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 0u);
}

// Without the scan the pass stores the weight as FLOAT16; the writer finds the overflow while it
// converts and writes the weight as float32, in the file and in memory alike.
TEST(CirclePassStoreFloat16Weights, TheWriterWritesBFloat16WeightsBeyondFloat16sRangeAsFloat32) {
  auto [m, k] = addConstant(widened(DType::BFloat16, {2}, {0x3f80, 0xc780}));
  auto [fits, kf] = addConstant(widened(DType::BFloat16, {2}, {0x3f80, 0x477f})); // 65280 fits
  const auto inputs = deterministicInputs(m);
  const auto expected = runModel(std::make_shared<const CircleModel>(m), inputs);
  EXPECT_TRUE(runCirclePass(m, "store-float16-weights"));
  EXPECT_TRUE(runCirclePass(fits, "store-float16-weights"));
  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 1u) << "no scan: the pass cannot know";

  const std::string path = ::testing::TempDir() + "/tico_float16_overflow.circle";
  writeCircleFile(m, path);
  const std::vector<uint8_t> bytes = serializeCircle(m);
  for (const CircleModel &written :
       {readCircleFile(path), readCircleBytes(Storage::fromBytes(std::vector<std::byte>(
                                                  reinterpret_cast<const std::byte *>(bytes.data()),
                                                  reinterpret_cast<const std::byte *>(bytes.data()) + bytes.size())),
                                              "memory")}) {
    EXPECT_EQ(countOps(written, BuiltinOperator::DEQUANTIZE), 0u);
    const CircleOperator &add = *opsOf(written, BuiltinOperator::ADD)[0];
    const CircleTensor &weight = tensorAt(written, add.inputs[1]);
    EXPECT_EQ(weight.type, circle::TensorType::FLOAT32);
    ASSERT_NE(weight.buffer, 0u);
    EXPECT_EQ(valuesOf<float>(*written.buffers[weight.buffer].data), (std::vector<float>{1.0f, -65536.0f}));
    const auto outputs = runModel(std::make_shared<const CircleModel>(written), inputs);
    EXPECT_EQ(maxRelativeDifference(outputs, expected), 0.0);
  }
  EXPECT_EQ(countOps(readCircleFile(path), BuiltinOperator::DEQUANTIZE), 0u);
  std::remove(path.c_str());

  // A weight within the range keeps its FLOAT16 form in the file.
  const std::vector<uint8_t> kept = serializeCircle(fits);
  const CircleModel read = readCircleBytes(
      Storage::fromBytes(std::vector<std::byte>(reinterpret_cast<const std::byte *>(kept.data()),
                                                reinterpret_cast<const std::byte *>(kept.data()) + kept.size())),
      "memory");
  EXPECT_EQ(countOps(read, BuiltinOperator::DEQUANTIZE), 1u);
  (void)k;
  (void)kf;
}

TEST(CirclePassStoreFloat16Weights, SmallBFloat16ValuesRoundToFloat16SubnormalsWithin2ToTheMinus25) {
  // 2^-20 * (1 + 2^-7) (0x3581) has bits below float16's subnormal step 2^-24; 2^-20 (0x3580)
  // and 0.5 do not.
  auto [m, k] = addConstant(widened(DType::BFloat16, {3}, {0x3581, 0x3580, 0x3f00}));
  const double diff = expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "store-float16-weights")); }, 1.0);
  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 1u);
  EXPECT_EQ(tensorAt(m, k).buffer, 0u);
  (void)diff;
  // The stored values: 2^-20 and 0.5 exactly, the other at most 2^-25 away.
  const CircleTensor &stored = tensorAt(m, opsOf(m, BuiltinOperator::DEQUANTIZE)[0]->inputs[0]);
  const auto bytes = m.buffers[stored.buffer].data->contiguousBytes();
  const auto *h = reinterpret_cast<const uint16_t *>(bytes.data());
  EXPECT_LE(std::abs(halfToFloat(h[0]) - std::ldexp(1.0f + 1.0f / 128, -20)), std::ldexp(1.0f, -25));
  EXPECT_EQ(halfToFloat(h[1]), std::ldexp(1.0f, -20));
  EXPECT_EQ(halfToFloat(h[2]), 0.5f);
}

TEST(CirclePassStoreFloat16Weights, OptionsTurnThePassOrItsBFloat16PartOff) {
  auto [bf, kb] = addConstant(widened(DType::BFloat16, {2}, {0x3f80, 0x4000}));
  EXPECT_FALSE(runCirclePass(bf, "store-float16-weights", {{"bfloat16", false}}));
  EXPECT_EQ(tensorAt(bf, kb).type, circle::TensorType::FLOAT32);
  EXPECT_NE(tensorAt(bf, kb).buffer, 0u);
  auto [half, kh] = addConstant(widenedFloat16({2}, {0x3c00, 0x4000}));
  EXPECT_TRUE(runCirclePass(half, "store-float16-weights", {{"bfloat16", false}})) << "float16 weights still go";
  auto [off, ko] = addConstant(widenedFloat16({2}, {0x3c00, 0x4000}));
  EXPECT_FALSE(runCirclePass(off, "store-float16-weights", {{"enabled", false}}));
  EXPECT_EQ(countOps(off, BuiltinOperator::DEQUANTIZE), 0u);
  (void)kh;
  (void)ko;
}

TEST(CirclePassStoreFloat16Weights, FullyConnectedAndGatherReadFloat16WeightsWithTheSameOutputs) {
  // An embedding table [6, 4] and a projection [5, 4], both bfloat16 checkpoint weights whose
  // values float16 holds exactly: the interpreter's weight-only kernels read the FLOAT16 bytes.
  std::vector<uint16_t> table_bits, weight_bits;
  for (int i = 0; i < 24; ++i)
    table_bits.push_back(floatToBFloat16(0.125f * static_cast<float>(i - 12)));
  for (int i = 0; i < 20; ++i)
    weight_bits.push_back(floatToBFloat16(0.0625f * static_cast<float>((i * 7) % 11 - 5)));
  ModelBuilder b;
  int32_t ids = b.input("ids", DType::Int32, {3});
  int32_t table = b.constant("table", widened(DType::BFloat16, {6, 4}, table_bits));
  int32_t weight = b.constant("weight", widened(DType::BFloat16, {5, 4}, weight_bits));
  int32_t rows = b.tensor("rows", DType::Float32, {3, 4});
  int32_t y = b.tensor("y", DType::Float32, {3, 5});
  b.op(BuiltinOperator::GATHER, {table, ids}, {rows}, ModelBuilder::options(circle::GatherOptionsT{}));
  b.op(BuiltinOperator::FULLY_CONNECTED, {rows, weight, -1}, {y}, fcOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "store-float16-weights")); }, 0.0);
  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 2u);
}

TEST(CirclePassStoreFloat16Weights, ModelsWithoutWidenedWeightsAreUnchanged) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {3});
  int32_t k = b.constant("k", f32({3}, {1, 2, 3}));
  int32_t y = b.tensor("y", DType::Float32, {3});
  b.op(BuiltinOperator::ADD, {x, k}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "store-float16-weights"));
  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 0u);
}

} // namespace
} // namespace tico::test
