// store-float16-weights: float32 constants that the dtype policy widened from float16 weights
// (their payload is a view of Storage::widenedToFloat32 over float16 bytes) are stored as the
// original FLOAT16 bytes again, and a DEQUANTIZE (FLOAT16 -> FLOAT32, the TFLite convention
// for float16 weights) recreates the float32 tensor before its first reader. The file carries
// half the weight bytes; the values are the same, since widening float16 is exact.
//
// Consumers: the built-in interpreter runs DEQUANTIZE from FLOAT16. onert 0.2 does not (it
// rejects the model at load: "OperationValidator failed"), so the pass is not part of the
// default pipeline. Weights widened from bfloat16 stay float32: FLOAT16 cannot hold bfloat16's
// exponent range, and no runtime here has BFLOAT16 tensors.
//
// Tensors sharing a widened buffer share one FLOAT16 buffer; a float32 buffer no tensor refers
// to any more loses its payload (`compact` drops the empty entry). Variable, quantized and
// interface tensors are left alone.
#include "model_query.h"
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"

#include <map>

namespace tico::circle_passes {
namespace {

// The float16 view behind a widened float32 payload, or null.
std::shared_ptr<const TensorData> float16Source(const CircleModel &model, const CircleTensor &t) {
  if (t.type != circle::TensorType::FLOAT32 || t.buffer == 0 || t.is_variable || t.quantization ||
      t.buffer >= model.buffers.size())
    return nullptr;
  const auto &data = model.buffers[t.buffer].data;
  if (!data || !data->storage || data->storage->widenedFromDType() != DType::Float16)
    return nullptr;
  auto narrow = std::make_shared<TensorData>(*data);
  narrow->storage = data->storage->widenedFrom();
  narrow->dtype = DType::Float16;
  return narrow;
}

class StoreFloat16Weights final : public CirclePass {
public:
  explicit StoreFloat16Weights(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    std::map<uint32_t, uint32_t> narrow_buffer; // float32 buffer -> its FLOAT16 buffer
    const bool changed = forEachSubgraph(model, [&](SubgraphEditor &e) {
      const auto count = static_cast<int32_t>(e.graph().tensors.size());
      for (int32_t t = 0; t < count; ++t) {
        if (!e.isConstantTensor(t) || e.isGraphOutput(t))
          continue;
        auto source = float16Source(e.model(), e.tensor(t));
        const std::vector<int> readers = e.consumers(t);
        if (!source || readers.empty())
          continue;
        const uint32_t wide = e.tensor(t).buffer;
        auto [it, fresh] = narrow_buffer.try_emplace(wide, 0);
        if (fresh)
          it->second = e.model().addBuffer(std::move(source));
        CircleTensor half;
        half.type = circle::TensorType::FLOAT16;
        half.shape = e.tensor(t).shape;
        half.shape_signature = e.tensor(t).shape_signature;
        half.name = e.tensor(t).name + "_float16";
        half.buffer = it->second;
        const int32_t stored = e.addTensor(std::move(half));
        e.tensor(t).buffer = 0;
        e.addOp(BuiltinOperator::DEQUANTIZE, {stored}, {t}, circle::BuiltinOptionsUnion{}, readers.front());
      }
    });
    if (!changed)
      return false;
    // Drop the float32 payloads nobody reads now, so the writer does not stream them.
    std::vector<bool> used(model.buffers.size(), false);
    for (const auto &g : model.subgraphs)
      for (const auto &t : g.tensors)
        used[t.buffer] = true;
    for (const auto &m : model.metadata)
      used[m.second] = true;
    for (const auto &[wide, narrow] : narrow_buffer)
      if (!used[wide])
        model.buffers[wide].data = nullptr;
    return true;
  }
};

} // namespace

void registerStoreFloat16Weights(Registrar &r) {
  registerCirclePass<StoreFloat16Weights>(
      r, "store-float16-weights",
      "store float32 constants widened from float16 weights as FLOAT16 + DEQUANTIZE (half the bytes; not for onert 0.2)");
}

} // namespace tico::circle_passes
