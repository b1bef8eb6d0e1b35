// store-float16-weights: the weights of a half-precision checkpoint are stored as FLOAT16, and a
// DEQUANTIZE (FLOAT16 -> FLOAT32, the TFLite convention for float16 weights) recreates the
// float32 tensor before its first reader. The file carries half the weight bytes.
//
// Which constants: float32 constants whose payload the dtype policy widened from the checkpoint's
// 16-bit weights (a view of Storage::converted over float16 or bfloat16 bytes). Constants the
// pipeline computed (a batch norm folded into a convolution, a folded transpose) are new float32
// values and stay float32: storing them as float16 would round them.
//   - float16 weights: the original bytes again; the values are the same (widening is exact).
//   - bfloat16 weights (option `bfloat16`, on by default): converted to float16 while the file
//     is written. Exact for every magnitude in [2^-14, 65504] (float16 has more significand
//     bits than bfloat16's eight); a magnitude below 2^-14 lands on float16's subnormal grid,
//     rounded to nearest even, an error of at most 2^-25. A weight with a finite magnitude
//     above 65504 stays float32 whole (float16 would make it inf). Who finds such a weight:
//     by default the Circle writer, which checks while it converts and writes the file again
//     with that weight in float32 (a trained weight beyond 65504 is rare, and scanning every
//     weight first costs a third of the write); with the option `scan_range` this pass scans
//     each weight first, keeps the ones beyond the range float32 itself and logs how many
//     values were rounded.
//
// Consumers: the built-in interpreter runs DEQUANTIZE from FLOAT16, and its FULLY_CONNECTED and
// GATHER read float16 weights in place. onert 0.2 does not (it rejects the model at load:
// "OperationValidator failed"): the default pipeline runs this pass, and its config field
// `float16_weights: false` (the option `enabled`) turns it off, which is what a file for onert
// needs.
//
// Tensors sharing a widened buffer share one FLOAT16 buffer; a float32 buffer no tensor refers
// to any more loses its payload (`compact` drops the empty entry). Variable, quantized and
// interface tensors are left alone.
#include "model_query.h"
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"
#include "tico/ir/float16_range.h"
#include "tico/support/log.h"

#include <algorithm>
#include <map>

namespace tico::circle_passes {
namespace {

// Whether a tensor's float32 payload is a checkpoint's half-precision weight that the dtype
// policy widened (a float16 / bfloat16 storage converted to float32).
bool isWidenedHalfWeight(const CircleModel &model, const CircleTensor &t) {
  if (t.type != circle::TensorType::FLOAT32 || t.buffer == 0 || t.is_variable || t.quantization ||
      t.buffer >= model.buffers.size())
    return false;
  const auto &data = model.buffers[t.buffer].data;
  return data && data->storage && data->storage->convertedFrom() &&
         data->storage->convertedToDType() == DType::Float32;
}

class StoreFloat16Weights final : public CirclePass {
public:
  explicit StoreFloat16Weights(const Options &options)
      : enabled_(options.getBool("enabled")), bfloat16_(options.getBool("bfloat16")),
        scan_range_(options.getBool("scan_range")) {}

  bool run(CircleModel &model, PassContext &) override {
    if (!enabled_)
      return false;
    std::map<uint32_t, uint32_t> narrow_buffer; // float32 buffer -> its FLOAT16 buffer (0: stays float32)
    Tally tally;
    const bool changed = forEachSubgraph(model, [&](SubgraphEditor &e) {
      const auto count = static_cast<int32_t>(e.graph().tensors.size());
      for (int32_t t = 0; t < count; ++t) {
        if (!e.isConstantTensor(t) || e.isGraphOutput(t) || !isWidenedHalfWeight(e.model(), e.tensor(t)))
          continue;
        const std::vector<int> readers = e.consumers(t);
        if (readers.empty())
          continue;
        const uint32_t wide = e.tensor(t).buffer;
        auto [it, fresh] = narrow_buffer.try_emplace(wide, 0);
        if (fresh)
          it->second = narrowBuffer(e.model(), wide, tally);
        if (it->second == 0)
          continue;
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
    tally.report();
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
      if (narrow != 0 && !used[wide])
        model.buffers[wide].data = nullptr;
    return true;
  }

private:
  struct Tally {
    std::size_t stored = 0, elements = 0, rounded = 0, kept_for_range = 0, kept_by_option = 0, unscanned = 0;
    void report() const {
      if (stored == 0 && kept_for_range == 0 && kept_by_option == 0)
        return;
      TICO_INFO << "store-float16-weights: " << stored << " weights (" << elements << " values) stored as FLOAT16"
                << (rounded ? ", " + std::to_string(rounded) + " bfloat16 values below 2^-14 rounded (error <= 2^-25)" : "")
                << (unscanned ? "; " + std::to_string(unscanned) +
                                    " of them bfloat16, range checked by the writer (values beyond 65504: float32)"
                              : "")
                << (kept_for_range ? "; " + std::to_string(kept_for_range) +
                                         " bfloat16 weights kept float32 (values beyond float16's 65504)"
                                   : "")
                << (kept_by_option ? "; " + std::to_string(kept_by_option) + " bfloat16 weights kept float32 (bfloat16=false)"
                                   : "");
    }
  };

  // A FLOAT16 buffer holding the half-precision source of float32 buffer `wide`, or 0 when that
  // weight stays float32.
  uint32_t narrowBuffer(CircleModel &model, uint32_t wide, Tally &tally) const {
    const TensorData &data = *model.buffers[wide].data;
    TensorData source = data;
    source.storage = data.storage->convertedFrom();
    source.dtype = data.storage->convertedFromDType();
    auto narrow = std::make_shared<TensorData>(data);
    narrow->dtype = DType::Float16;
    if (source.dtype == DType::Float16) {
      narrow->storage = source.storage;
    } else {
      if (!bfloat16_) {
        ++tally.kept_by_option;
        return 0;
      }
      if (scan_range_) {
        const Float16Range range = float16RangeOf(source);
        if (!range.fits) {
          ++tally.kept_for_range;
          return 0;
        }
        tally.rounded += range.rounded;
      } else {
        ++tally.unscanned;
      }
      narrow->storage = Storage::converted(source.storage, DType::BFloat16, DType::Float16);
    }
    ++tally.stored;
    tally.elements += static_cast<std::size_t>(narrow->numel());
    return model.addBuffer(std::move(narrow));
  }

  bool enabled_;
  bool bfloat16_;
  bool scan_range_;
};

} // namespace

void registerStoreFloat16Weights(Registrar &r) {
  registerCirclePass<StoreFloat16Weights>(
      r, "store-float16-weights",
      "store the float32 weights the dtype policy widened from float16 / bfloat16 checkpoints as FLOAT16 + "
      "DEQUANTIZE (half the bytes; the built-in runtime runs them, onert 0.2 does not)",
      {OptionSpec{"enabled", OptionType::Bool, true,
                  "off: the pass changes nothing (the pipeline config field float16_weights: false, for files that "
                  "onert 0.2 loads)"},
       OptionSpec{"bfloat16", OptionType::Bool, true,
                  "also bfloat16 weights, converted to float16 (exact in [2^-14, 65504]; smaller magnitudes rounded "
                  "to float16's subnormals, error <= 2^-25; a weight with larger values stays float32)"},
       OptionSpec{"scan_range", OptionType::Bool, false,
                  "scan each bfloat16 weight for float16's range here (and log how many values are rounded) instead of "
                  "letting the Circle writer check while it converts; the files hold the same values, the scan costs time"}});
}

} // namespace tico::circle_passes
