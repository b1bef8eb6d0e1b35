// mergeAsSignatures (tico/circle/signatures.h).
#include "tico/circle/signatures.h"

#include "tico/support/error.h"

#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

namespace tico {
namespace {

// Buffers of the merged model, found again by view (the specializations of one graph share their
// weights' storage: no byte is read) or else by contents among buffers of the same shape.
class BufferTable {
public:
  explicit BufferTable(CircleModel &model) : model_(model) {}

  uint32_t add(const CircleBuffer &buffer) {
    if (!buffer.data)
      return model_.addBuffer(nullptr);
    const TensorData &data = *buffer.data;
    for (uint32_t index : by_storage_[data.storage.get()])
      if (model_.buffers[index].data->sameView(data))
        return index;
    auto &same_shape = by_shape_[{data.dtype, data.sizes}];
    for (uint32_t index : same_shape)
      if (model_.buffers[index].data->sameElements(data))
        return index;
    const uint32_t index = model_.addBuffer(buffer.data);
    by_storage_[data.storage.get()].push_back(index);
    same_shape.push_back(index);
    return index;
  }

private:
  CircleModel &model_;
  std::unordered_map<const Storage *, std::vector<uint32_t>> by_storage_;
  std::map<std::pair<DType, std::vector<int64_t>>, std::vector<uint32_t>> by_shape_;
};

std::vector<CircleTensorMap> tensorMap(const CircleSubGraph &graph, const std::vector<int32_t> &indices) {
  std::vector<CircleTensorMap> out;
  for (int32_t i : indices)
    out.push_back({graph.tensors[static_cast<std::size_t>(i)].name, static_cast<uint32_t>(i)});
  return out;
}

} // namespace

CircleModel mergeAsSignatures(std::vector<SignaturePart> parts) {
  if (parts.empty())
    throw Error("no signatures to merge");
  std::set<std::string> names;
  for (const SignaturePart &part : parts) {
    if (part.signature.empty())
      throw Error("a signature needs a name");
    if (!names.insert(part.signature).second)
      throw Error("signature '" + part.signature + "' is given twice");
    if (part.model.subgraphs.size() != 1)
      throw Error("signature '" + part.signature + "' lowers to " + std::to_string(part.model.subgraphs.size()) +
                  " subgraphs; only one-subgraph models (no control flow) are merged into signatures");
  }
  CircleModel merged;
  merged.version = parts.front().model.version;
  merged.description = parts.front().model.description;
  merged.buffers.clear();
  BufferTable buffers(merged);
  buffers.add(CircleBuffer{}); // buffer 0 stays the empty sentinel
  std::map<std::string, std::vector<std::byte>> metadata_bytes;
  for (SignaturePart &part : parts) {
    CircleModel &model = part.model;
    std::vector<uint32_t> buffer_map(model.buffers.size(), 0);
    for (std::size_t b = 1; b < model.buffers.size(); ++b)
      buffer_map[b] = buffers.add(model.buffers[b]);
    std::vector<uint32_t> code_map;
    for (const CircleOperatorCode &code : model.operator_codes) {
      uint32_t index = 0;
      while (index < merged.operator_codes.size() &&
             !(merged.operator_codes[index].builtin_code == code.builtin_code &&
               merged.operator_codes[index].custom_code == code.custom_code &&
               merged.operator_codes[index].version == code.version))
        ++index;
      if (index == merged.operator_codes.size())
        merged.operator_codes.push_back(code);
      code_map.push_back(index);
    }
    CircleSubGraph graph = std::move(model.subgraphs.front());
    graph.name = part.signature;
    for (CircleTensor &tensor : graph.tensors)
      tensor.buffer = buffer_map.at(tensor.buffer);
    for (CircleOperator &op : graph.operators)
      op.opcode_index = code_map.at(op.opcode_index);
    CircleSignature signature;
    signature.key = part.signature;
    signature.subgraph_index = static_cast<uint32_t>(merged.subgraphs.size());
    signature.inputs = tensorMap(graph, graph.inputs);
    signature.outputs = tensorMap(graph, graph.outputs);
    merged.subgraphs.push_back(std::move(graph));
    merged.signatures.push_back(std::move(signature));
    for (const auto &[name, index] : model.metadata) {
      const auto &data = model.buffers.at(index).data;
      std::vector<std::byte> bytes = data ? data->contiguousBytes() : std::vector<std::byte>{};
      auto [it, fresh] = metadata_bytes.emplace(name, bytes);
      if (fresh)
        merged.metadata.emplace_back(name, buffer_map.at(index));
      else if (it->second != bytes)
        throw Error("metadata '" + name + "' differs between the signatures");
    }
  }
  return merged;
}

} // namespace tico
