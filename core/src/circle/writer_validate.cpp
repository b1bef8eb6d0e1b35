// Checks run before the writer touches the disk, so a broken model yields a message naming the
// offending element instead of a file that readers reject (or a crash while streaming).

#include "writer_detail.h"

#include "tico/support/error.h"

#include <string>

namespace tico::circle_writer {
namespace {

std::string tensorLabel(const CircleSubGraph &subgraph, std::size_t sg, std::size_t t) {
  std::string label = "subgraph " + std::to_string(sg) + " tensor " + std::to_string(t);
  if (t < subgraph.tensors.size() && !subgraph.tensors[t].name.empty())
    label += " '" + subgraph.tensors[t].name + "'";
  return label;
}

void checkTensorIndex(int64_t index, const CircleSubGraph &subgraph, std::size_t sg,
                      const std::string &where, bool allow_omitted) {
  if (allow_omitted && index == -1)
    return;
  if (index < 0 || static_cast<uint64_t>(index) >= subgraph.tensors.size())
    throw Error("Circle writer: " + where + " refers to tensor " + std::to_string(index) +
                ", but subgraph " + std::to_string(sg) + " has " +
                std::to_string(subgraph.tensors.size()) + " tensors");
}

void validateSubGraph(const CircleModel &model, const CircleSubGraph &subgraph, std::size_t sg) {
  for (std::size_t t = 0; t < subgraph.tensors.size(); ++t) {
    const CircleTensor &tensor = subgraph.tensors[t];
    if (tensor.buffer >= model.buffers.size())
      throw Error("Circle writer: " + tensorLabel(subgraph, sg, t) + " uses buffer " +
                  std::to_string(tensor.buffer) + ", but the model has " +
                  std::to_string(model.buffers.size()) + " buffers");
    if (!tensor.shape_signature.empty() && tensor.shape_signature.size() != tensor.shape.size())
      throw Error("Circle writer: " + tensorLabel(subgraph, sg, t) + " has rank " +
                  std::to_string(tensor.shape.size()) + " but a shape signature of rank " +
                  std::to_string(tensor.shape_signature.size()));
  }
  const std::string sg_label = "subgraph " + std::to_string(sg);
  for (int32_t index : subgraph.inputs)
    checkTensorIndex(index, subgraph, sg, sg_label + " inputs", false);
  for (int32_t index : subgraph.outputs)
    checkTensorIndex(index, subgraph, sg, sg_label + " outputs", false);
  for (std::size_t o = 0; o < subgraph.operators.size(); ++o) {
    const CircleOperator &op = subgraph.operators[o];
    const std::string op_label = sg_label + " operator " + std::to_string(o);
    if (op.opcode_index >= model.operator_codes.size())
      throw Error("Circle writer: " + op_label + " uses operator code " +
                  std::to_string(op.opcode_index) + ", but the model has " +
                  std::to_string(model.operator_codes.size()));
    for (int32_t index : op.inputs)
      checkTensorIndex(index, subgraph, sg, op_label + " input", true);
    for (int32_t index : op.outputs)
      checkTensorIndex(index, subgraph, sg, op_label + " output", false);
  }
}

} // namespace

void validateModel(const CircleModel &model, const CircleWriteOptions &options) {
  if (options.file_identifier.size() != flatbuffers::FlatBufferBuilder::kFileIdentifierLength)
    throw Error("Circle writer: file identifier '" + options.file_identifier +
                "' must be exactly 4 characters (\"CIR0\" or \"TFL3\")");
  if (model.buffers.empty())
    throw Error("Circle writer: the model has no buffers (buffer 0, the empty sentinel, is required)");
  if (model.buffers[0].data && model.buffers[0].data->nbytes() > 0)
    throw Error("Circle writer: buffer 0 is the empty sentinel and must not hold data");

  for (std::size_t i = 0; i < model.operator_codes.size(); ++i) {
    // deprecated_builtin_code is a signed byte and holds negative codes as they are.
    if (model.operator_codes[i].builtin_code < -128)
      throw Error("Circle writer: operator code " + std::to_string(i) + " has builtin code " +
                  std::to_string(model.operator_codes[i].builtin_code) +
                  ", below the smallest code Circle can store (-128)");
  }

  for (std::size_t sg = 0; sg < model.subgraphs.size(); ++sg)
    validateSubGraph(model, model.subgraphs[sg], sg);

  for (const CircleSignature &signature : model.signatures) {
    if (signature.subgraph_index >= model.subgraphs.size())
      throw Error("Circle writer: signature '" + signature.key + "' refers to subgraph " +
                  std::to_string(signature.subgraph_index) + ", but the model has " +
                  std::to_string(model.subgraphs.size()));
    const CircleSubGraph &subgraph = model.subgraphs[signature.subgraph_index];
    for (const auto *maps : {&signature.inputs, &signature.outputs})
      for (const CircleTensorMap &map : *maps)
        checkTensorIndex(map.tensor_index, subgraph, signature.subgraph_index,
                         "signature '" + signature.key + "' entry '" + map.name + "'", false);
  }

  for (const auto &[name, buffer] : model.metadata)
    if (buffer >= model.buffers.size())
      throw Error("Circle writer: metadata '" + name + "' refers to buffer " + std::to_string(buffer) +
                  ", but the model has " + std::to_string(model.buffers.size()));

  for (std::size_t b = 0; b < model.buffers.size(); ++b) {
    const auto &data = model.buffers[b].data;
    if (!data)
      continue;
    try {
      if (!data->storage && data->numel() != 0)
        throw Error("it has no storage");
      data->checkBounds();
    } catch (const Error &e) {
      throw Error("Circle writer: payload of buffer " + std::to_string(b) + " is unusable: " + e.what());
    }
  }
}

} // namespace tico::circle_writer
