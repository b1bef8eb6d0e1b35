// Builds the metadata FlatBuffer (everything but the payload bytes) with the builder API.
//
// Objects are created in one fixed traversal order, so the same model always produces the same
// bytes. Payload fields are written as placeholders whose positions are recorded; the layout
// step patches them once the FlatBuffer's final size is known.

#include "writer_detail.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

namespace tico::circle_writer {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<circle::OperatorCode> buildOperatorCode(FlatBufferBuilder &fbb, const CircleOperatorCode &code) {
  auto custom = code.custom_code.empty() ? Offset<flatbuffers::String>() : fbb.CreateString(code.custom_code);
  // The legacy byte saturates at PLACEHOLDER_FOR_GREATER_OP_CODES (127) for newer operators;
  // Circle's negative extension codes fit the signed byte and are stored unchanged.
  const auto legacy = static_cast<int8_t>(std::min<int32_t>(code.builtin_code, 127));
  return circle::CreateOperatorCode(fbb, legacy, custom, code.version,
                                    static_cast<circle::BuiltinOperator>(code.builtin_code));
}

// Quantization tables already written, by content: a tensor that several subgraphs declare
// (a weight read by the monolith and by an incremental region) has one table, its per-channel
// scales and zero points written once and referenced from every tensor table (FlatBuffers
// objects may be referenced more than once). Tables with details (MX) are written each time.
using QuantizationKey = std::tuple<std::vector<float>, std::vector<float>, std::vector<float>, std::vector<int64_t>, int32_t>;
using QuantizationTables = std::map<QuantizationKey, Offset<circle::QuantizationParameters>>;

Offset<circle::QuantizationParameters> quantizationTable(FlatBufferBuilder &fbb, const circle::QuantizationParametersT &q,
                                                         QuantizationTables &written) {
  if (q.details.type != circle::QuantizationDetails::NONE)
    return circle::CreateQuantizationParameters(fbb, &q);
  auto [it, fresh] = written.try_emplace(QuantizationKey{q.min, q.max, q.scale, q.zero_point, q.quantized_dimension});
  if (fresh)
    it->second = circle::CreateQuantizationParameters(fbb, &q);
  return it->second;
}

// Tensor tables already written, by content (name and quantization by their shared offsets):
// a region subgraph declares the monolith's tensors again, with the same name, shape, type,
// buffer and parameters, and references the monolith's table instead of repeating it.
using TensorKey = std::tuple<uint32_t, std::vector<int32_t>, int8_t, uint32_t, uint32_t, bool, std::vector<int32_t>>;

struct SharedTables {
  QuantizationTables quantization;
  std::map<TensorKey, Offset<circle::Tensor>> tensors;
};

Offset<circle::Tensor> buildTensor(FlatBufferBuilder &fbb, const CircleTensor &tensor, SharedTables &written) {
  // Names repeat across subgraphs (regions name their tensors as the monolith does): written once.
  auto name = fbb.CreateSharedString(tensor.name);
  Offset<circle::QuantizationParameters> quantization;
  if (tensor.quantization)
    quantization = quantizationTable(fbb, *tensor.quantization, written.quantization);
  auto [it, fresh] = written.tensors.try_emplace(TensorKey{name.o, tensor.shape, static_cast<int8_t>(tensor.type),
                                                           tensor.buffer, quantization.o, tensor.is_variable,
                                                           tensor.shape_signature});
  if (!fresh)
    return it->second;
  auto shape = fbb.CreateVector(tensor.shape);
  // An empty signature would make the ONE runtime treat the tensor as rank 0.
  Offset<flatbuffers::Vector<int32_t>> signature;
  if (!tensor.shape_signature.empty())
    signature = fbb.CreateVector(tensor.shape_signature);
  it->second = circle::CreateTensor(fbb, shape, tensor.type, tensor.buffer, name, quantization, tensor.is_variable,
                                    signature);
  return it->second;
}

Offset<circle::Operator> buildOperator(FlatBufferBuilder &fbb, const CircleOperator &op) {
  auto inputs = fbb.CreateVector(op.inputs);
  auto outputs = fbb.CreateVector(op.outputs);
  auto options = op.builtin_options.Pack(fbb);
  Offset<flatbuffers::Vector<uint8_t>> custom;
  if (!op.custom_options.empty())
    custom = fbb.CreateVector(op.custom_options);
  return circle::CreateOperator(fbb, op.opcode_index, inputs, outputs, op.builtin_options.type,
                                options, custom);
}

Offset<circle::SubGraph> buildSubGraph(FlatBufferBuilder &fbb, const CircleSubGraph &subgraph, SharedTables &shared) {
  std::vector<Offset<circle::Tensor>> tensors;
  tensors.reserve(subgraph.tensors.size());
  for (const auto &tensor : subgraph.tensors)
    tensors.push_back(buildTensor(fbb, tensor, shared));
  std::vector<Offset<circle::Operator>> operators;
  operators.reserve(subgraph.operators.size());
  for (const auto &op : subgraph.operators)
    operators.push_back(buildOperator(fbb, op));
  auto tensor_vec = fbb.CreateVector(tensors);
  auto inputs = fbb.CreateVector(subgraph.inputs);
  auto outputs = fbb.CreateVector(subgraph.outputs);
  auto operator_vec = fbb.CreateVector(operators);
  auto name = fbb.CreateString(subgraph.name);
  return circle::CreateSubGraph(fbb, tensor_vec, inputs, outputs, operator_vec, name);
}

Offset<flatbuffers::Vector<Offset<circle::TensorMap>>>
buildTensorMaps(FlatBufferBuilder &fbb, const std::vector<CircleTensorMap> &maps) {
  std::vector<Offset<circle::TensorMap>> offsets;
  offsets.reserve(maps.size());
  for (const auto &map : maps)
    offsets.push_back(circle::CreateTensorMap(fbb, fbb.CreateString(map.name), map.tensor_index));
  return fbb.CreateVector(offsets);
}

Offset<circle::SignatureDef> buildSignature(FlatBufferBuilder &fbb, const CircleSignature &signature) {
  auto inputs = buildTensorMaps(fbb, signature.inputs);
  auto outputs = buildTensorMaps(fbb, signature.outputs);
  auto key = fbb.CreateString(signature.key);
  return circle::CreateSignatureDef(fbb, inputs, outputs, key, signature.subgraph_index);
}

// A Buffer table. Payload-carrying buffers get their placeholder recorded in `payloads`.
Offset<circle::Buffer> buildBuffer(FlatBufferBuilder &fbb, PayloadLayout layout, uint32_t index,
                                   const CircleBuffer &buffer, std::vector<PayloadPlacement> &payloads) {
  const uint64_t size = buffer.data ? buffer.data->nbytes() : 0;
  // A constant without elements (the shape operand of a rank-0 RESHAPE) still gets its empty
  // `data` vector: runtimes (onert 0.2) take a buffer without one for a runtime input.
  Offset<flatbuffers::Vector<uint8_t>> empty;
  if (buffer.data && size == 0)
    empty = fbb.CreateVector(static_cast<const uint8_t *>(nullptr), 0);
  const auto start = fbb.StartTable();
  if (!empty.IsNull())
    fbb.AddOffset(circle::Buffer::VT_DATA, empty);
  if (size > 0) {
    PayloadPlacement placement;
    placement.buffer_index = index;
    placement.data = buffer.data.get();
    placement.size = size;
    if (layout == PayloadLayout::Inline) {
      // A raw uoffset in the `data` slot: the vector it will point to is written after the
      // FlatBuffer, which is legal because FlatBuffers offsets always point forward.
      fbb.AddElement<flatbuffers::uoffset_t>(circle::Buffer::VT_DATA, 0);
    } else {
      fbb.AddElement<uint64_t>(circle::Buffer::VT_SIZE, size);
      fbb.AddElement<uint64_t>(circle::Buffer::VT_OFFSET, 0);
    }
    // The element just pushed ends the buffer built so far: its distance from the end is the
    // current size, and that distance does not change as the builder grows towards the front.
    placement.field_from_end = fbb.GetSize();
    payloads.push_back(placement);
  }
  return Offset<circle::Buffer>(fbb.EndTable(start));
}

} // namespace

void buildMetadata(const CircleModel &model, const CircleWriteOptions &options, CircleImage &image) {
  FlatBufferBuilder &fbb = image.fbb;
  fbb.Clear();
  image.payloads.clear();

  std::vector<Offset<circle::OperatorCode>> codes;
  codes.reserve(model.operator_codes.size());
  for (const auto &code : model.operator_codes)
    codes.push_back(buildOperatorCode(fbb, code));
  auto code_vec = fbb.CreateVector(codes);

  std::vector<Offset<circle::SubGraph>> subgraphs;
  subgraphs.reserve(model.subgraphs.size());
  SharedTables shared;
  for (const auto &subgraph : model.subgraphs)
    subgraphs.push_back(buildSubGraph(fbb, subgraph, shared));
  auto subgraph_vec = fbb.CreateVector(subgraphs);

  auto description = fbb.CreateString(model.description);

  std::vector<Offset<circle::Buffer>> buffers;
  buffers.reserve(model.buffers.size());
  for (std::size_t b = 0; b < model.buffers.size(); ++b)
    buffers.push_back(buildBuffer(fbb, image.layout, static_cast<uint32_t>(b), model.buffers[b], image.payloads));
  auto buffer_vec = fbb.CreateVector(buffers);

  Offset<flatbuffers::Vector<Offset<circle::Metadata>>> metadata_vec;
  if (!model.metadata.empty()) {
    std::vector<Offset<circle::Metadata>> metadata;
    for (const auto &[name, buffer] : model.metadata)
      metadata.push_back(circle::CreateMetadata(fbb, fbb.CreateString(name), buffer));
    metadata_vec = fbb.CreateVector(metadata);
  }

  Offset<flatbuffers::Vector<Offset<circle::SignatureDef>>> signature_vec;
  if (!model.signatures.empty()) {
    std::vector<Offset<circle::SignatureDef>> signatures;
    for (const auto &signature : model.signatures)
      signatures.push_back(buildSignature(fbb, signature));
    signature_vec = fbb.CreateVector(signatures);
  }

  auto root = circle::CreateModel(fbb, model.version, code_vec, subgraph_vec, description, buffer_vec,
                                  /*metadata_buffer=*/0, metadata_vec, signature_vec);
  fbb.Finish(root, options.file_identifier.c_str());
}

} // namespace tico::circle_writer
