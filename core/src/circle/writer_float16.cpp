// The Circle writer's fallback for bfloat16 weights that do not fit float16.
//
// store-float16-weights stores a bfloat16 checkpoint's weights as FLOAT16 + DEQUANTIZE without
// reading them first: a trained weight beyond float16's 65504 is rare, and a scan of every
// weight before the write costs a third of the write itself. The writer converts while it
// streams and notices an overflow then (writer_stream.cpp); the file is written again with the
// weights that overflowed in float32, as the pass would have left them after a scan. The rare
// model pays for two writes; every other one for one.
#include "writer_detail.h"

#include "tico/ir/float16_range.h"
#include "tico/support/log.h"

#include <algorithm>
#include <map>

namespace tico::circle_writer {
namespace {

bool isOneOf(const std::vector<uint32_t> &buffers, uint32_t buffer) {
  return std::find(buffers.begin(), buffers.end(), buffer) != buffers.end();
}

} // namespace

CircleModel withFloat32Weights(const CircleModel &model, const std::vector<uint32_t> &buffers) {
  CircleModel out = model; // payloads are shared, not copied
  std::map<uint32_t, uint32_t> wide;
  for (auto &g : out.subgraphs) {
    std::vector<CircleOperator> kept;
    kept.reserve(g.operators.size());
    for (auto &op : g.operators) {
      const bool dequantize = out.operator_codes.at(op.opcode_index).builtin_code ==
                              static_cast<int32_t>(circle::BuiltinOperator::DEQUANTIZE);
      if (dequantize && op.inputs.size() == 1 && op.outputs.size() == 1 && op.inputs[0] >= 0) {
        const CircleTensor &half = g.tensors.at(static_cast<std::size_t>(op.inputs[0]));
        if (half.type == circle::TensorType::FLOAT16 && isOneOf(buffers, half.buffer)) {
          auto [it, fresh] = wide.try_emplace(half.buffer, 0);
          if (fresh) {
            const TensorData &narrow = *out.buffers.at(half.buffer).data;
            auto widened = std::make_shared<TensorData>(narrow);
            widened->storage = Storage::converted(narrow.storage->convertedFrom(), DType::BFloat16, DType::Float32);
            widened->dtype = DType::Float32;
            it->second = out.addBuffer(std::move(widened));
          }
          g.tensors.at(static_cast<std::size_t>(op.outputs[0])).buffer = it->second;
          continue; // the float32 output is the constant now
        }
      }
      kept.push_back(std::move(op));
    }
    g.operators = std::move(kept);
    for (auto &t : g.tensors) // the FLOAT16 tensors nothing reads now
      if (t.type == circle::TensorType::FLOAT16 && isOneOf(buffers, t.buffer))
        t.buffer = 0;
  }
  for (uint32_t b : buffers)
    out.buffers.at(b).data = nullptr;
  TICO_INFO << "Circle writer: " << buffers.size()
            << " bfloat16 weight(s) have values beyond float16's 65504; written as float32 instead of FLOAT16";
  return out;
}

std::vector<uint32_t> float16Overflows(const CircleModel &model) {
  std::vector<uint32_t> overflowed;
  for (uint32_t b = 0; b < model.buffers.size(); ++b) {
    const auto &data = model.buffers[b].data;
    if (!data || !data->storage->convertedFrom() || data->storage->convertedFromDType() != DType::BFloat16 ||
        data->storage->convertedToDType() != DType::Float16)
      continue;
    TensorData source = *data;
    source.storage = data->storage->convertedFrom();
    source.dtype = DType::BFloat16;
    if (!float16RangeOf(source).fits)
      overflowed.push_back(b);
  }
  return overflowed;
}

} // namespace tico::circle_writer
