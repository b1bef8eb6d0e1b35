// The lowering ABI: one visitor per op key turns an IR node into Circle operators.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/graph.h"
#include "tico/lowering/lowering_spec.h"

#include <memory>
#include <string>
#include <vector>

namespace tico {

// What a lowering uses to emit Circle: tensors for IR values, new intermediate and constant
// tensors, and operators. Implemented by the core serializer.
class CircleEmitter {
public:
  virtual ~CircleEmitter() = default;

  // The Circle tensor of an IR value, created on first use (constants get their buffer; a
  // tensor shared by storage and view with another constant reuses that tensor).
  virtual int32_t tensor(const Value *value) = 0;
  // Binds an IR value to an existing Circle tensor (for lowerings whose result is another
  // tensor, e.g. a no-op). Throws if the value already has a tensor.
  virtual void alias(const Value *value, int32_t tensor) = 0;
  // A new intermediate tensor. Symbolic dims become 1 with shape_signature -1.
  virtual int32_t newTensor(DType dtype, const Shape &shape, const std::string &name_hint) = 0;
  // A new constant tensor holding `data` (row-major).
  virtual int32_t constant(std::shared_ptr<const TensorData> data, const std::string &name_hint) = 0;

  // Appends an operator. Optional inputs that are absent are -1.
  virtual void addOperator(circle::BuiltinOperator op, std::vector<int32_t> inputs,
                           std::vector<int32_t> outputs, circle::BuiltinOptionsUnion options = {}) = 0;

  virtual CircleModel &model() = 0;

  // Helpers built on constant().
  int32_t constInt32(const std::vector<int32_t> &values, const std::string &name_hint = "const");
  int32_t constInt64(const std::vector<int64_t> &values, const std::string &name_hint = "const");
  int32_t constFloat(const std::vector<float> &values, std::vector<int64_t> shape,
                     const std::string &name_hint = "const");
  int32_t scalarFloat(float value, const std::string &name_hint = "const");
  // Gives a tensor the lowering made (newTensor, constant) quantization parameters, in the
  // encoding of tico/circle/quantization.h (tensors of IR values get theirs automatically).
  // Throws tico::Error naming the tensor for parameters Circle cannot express.
  void setQuantization(int32_t tensor, const QuantParams &quant);
};

class OpLowering {
public:
  virtual ~OpLowering() = default;
  // Why this lowering cannot handle `node` (a dtype, rank or attribute it does not cover),
  // or "" when it can. The serializer collects these for its error report.
  virtual std::string unsupportedReason(const Node & /*node*/) const { return {}; }
  // Emits the Circle operators for `node`; every output of the node must end up with a
  // tensor (through tensor(node.output(i)) or alias()).
  virtual void lower(const Node &node, CircleEmitter &emit) const = 0;
};

} // namespace tico
