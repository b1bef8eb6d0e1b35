// Golden tests of store-float16-weights: float32 constants widened from float16 storage (the
// dtype policy's weights) go back to FLOAT16 + DEQUANTIZE with the same outputs on the
// interpreter; tied views share one FLOAT16 buffer; bfloat16-widened and plain float32
// constants are not touched; a second run changes nothing.
#include "circle_pass_test_support.h"

#include <set>

namespace tico::test {
namespace {

using circle::BuiltinOperator;

// A float32 view of `values` stored as float16 (exactly representable values only).
TensorPtr widenedFloat16(std::vector<int64_t> shape, const std::vector<uint16_t> &half_bits) {
  auto source = TensorData::fromVector(DType::Float16, shape, half_bits);
  auto view = std::make_shared<TensorData>(source);
  view->storage = Storage::widenedToFloat32(source.storage, DType::Float16);
  view->dtype = DType::Float32;
  return view;
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

  EXPECT_EQ(countOps(m, BuiltinOperator::DEQUANTIZE), 2u);
  const auto dequantizes = opsOf(m, BuiltinOperator::DEQUANTIZE);
  std::set<uint32_t> half_buffers;
  for (const CircleOperator *op : dequantizes) {
    const CircleTensor &stored = tensorAt(m, op->inputs[0]);
    EXPECT_EQ(stored.type, circle::TensorType::FLOAT16);
    EXPECT_EQ(stored.shape, (std::vector<int32_t>{2, 3}));
    half_buffers.insert(stored.buffer);
    EXPECT_EQ(tensorAt(m, op->outputs[0]).buffer, 0u) << "the float32 tensor is computed now";
  }
  ASSERT_EQ(half_buffers.size(), 1u) << "tied tensors share one FLOAT16 buffer";
  const auto &payload = m.buffers[*half_buffers.begin()].data;
  EXPECT_EQ(payload->dtype, DType::Float16);
  EXPECT_EQ(payload->nbytes(), 12u);
  EXPECT_EQ(m.buffers[wide_buffer].data, nullptr) << "the widened float32 payload is no longer written";
  EXPECT_EQ(tensorAt(m, kb).type, circle::TensorType::FLOAT32) << "bfloat16 weights stay float32";
  EXPECT_NE(tensorAt(m, kb).buffer, 0u);
  EXPECT_NE(tensorAt(m, kp).buffer, 0u);
  EXPECT_FALSE(runCirclePass(m, "store-float16-weights"));
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
