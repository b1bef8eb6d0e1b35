// An editable in-memory Circle model.
//
// The converter builds this object model, Circle passes rewrite it, and the writer streams
// it to disk. Operator options and quantization records use the FlatBuffers object-API types
// generated from our schema (core/schema/circle.fbs); buffer payloads are TensorData views,
// so weights that live in a memory-mapped input are never copied into the model.
#pragma once

#include "tico/circle/circle_generated.h"
#include "tico/ir/tensor_data.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tico {

struct CircleOperatorCode {
  int32_t builtin_code = 0; // circle::BuiltinOperator value (negative for Circle extensions)
  std::string custom_code;
  int32_t version = 1;
};

struct CircleTensor {
  std::vector<int32_t> shape;
  // Absent unless some dimension is dynamic: an empty signature breaks the ONE runtime.
  std::vector<int32_t> shape_signature;
  circle::TensorType type = circle::TensorType::FLOAT32;
  uint32_t buffer = 0; // 0 = the empty sentinel buffer (no data)
  std::string name;
  std::shared_ptr<const circle::QuantizationParametersT> quantization;
  bool is_variable = false;
};

struct CircleOperator {
  uint32_t opcode_index = 0;
  std::vector<int32_t> inputs; // -1 marks an omitted optional input
  std::vector<int32_t> outputs;
  circle::BuiltinOptionsUnion builtin_options;
  std::vector<uint8_t> custom_options;
};

struct CircleSubGraph {
  std::string name;
  std::vector<CircleTensor> tensors;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<CircleOperator> operators;
};

struct CircleTensorMap {
  std::string name;
  uint32_t tensor_index = 0;
};

struct CircleSignature {
  std::string key;
  uint32_t subgraph_index = 0;
  std::vector<CircleTensorMap> inputs;
  std::vector<CircleTensorMap> outputs;
};

struct CircleBuffer {
  // Payload written in row-major order; null for buffers without data.
  std::shared_ptr<const TensorData> data;
};

struct CircleModel {
  uint32_t version = 0;
  std::string description = "tico";
  std::vector<CircleOperatorCode> operator_codes;
  std::vector<CircleSubGraph> subgraphs;
  std::vector<CircleBuffer> buffers{CircleBuffer{}}; // buffer 0 is the empty sentinel
  std::vector<CircleSignature> signatures;
  std::vector<std::pair<std::string, uint32_t>> metadata; // name -> buffer index

  // Index of the operator code for `builtin` (and custom code), added in first-use order.
  uint32_t operatorCodeIndex(circle::BuiltinOperator builtin, const std::string &custom_code = {});
  // Appends a buffer holding `data` and returns its index.
  uint32_t addBuffer(std::shared_ptr<const TensorData> data);
  // Sum of payload bytes over all buffers.
  uint64_t payloadBytes() const;
};

// Circle tensor type for an IR dtype; throws tico::Error for types Circle cannot hold.
circle::TensorType toCircleType(DType dtype);
DType fromCircleType(circle::TensorType type);

} // namespace tico
