// SSA values of the graph IR.
#pragma once

#include "tico/ir/dtype.h"
#include "tico/ir/quant_params.h"
#include "tico/ir/shape.h"
#include "tico/ir/tensor_data.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tico {

class Node;
class Graph;

enum class ValueKind : uint8_t {
  Tensor,
  SymInt,   // a symbolic integer (e.g. the result of aten::sym_size.int)
  SymFloat,
  SymBool,
};

// A value is produced by exactly one node output, or is a graph input (user input,
// parameter, buffer, lifted constant). Values are owned by their Graph.
class Value {
public:
  const std::string &name() const { return name_; }
  ValueKind kind() const { return kind_; }
  bool isTensor() const { return kind_ == ValueKind::Tensor; }

  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  void setType(DType dtype, Shape shape) {
    dtype_ = dtype;
    shape_ = std::move(shape);
  }

  // Quantization parameters of a quantized tensor (its dtype is the storage type), or null.
  // The record is shared and immutable: replace it, never change it in place.
  const QuantParams *quant() const { return quant_.get(); }
  const std::shared_ptr<const QuantParams> &quantShared() const { return quant_; }
  // Affine-quantized (integer codes with scale / zero point). An MX value (quant()->isMx()) is
  // not: it holds real f32 values, and every pass treats it as float.
  bool isQuantized() const { return quant_ != nullptr && !quant_->isMx(); }
  bool isMxQuantized() const { return quant_ != nullptr && quant_->isMx(); }
  void setQuant(std::shared_ptr<const QuantParams> quant) { quant_ = std::move(quant); }
  void setQuant(QuantParams quant) { quant_ = std::make_shared<const QuantParams>(std::move(quant)); }

  // For SymInt/SymFloat/SymBool values: the symbolic expression ("s0", "2*s0") and the hint.
  const std::string &symExpr() const { return sym_expr_; }
  int64_t symHint() const { return sym_hint_; }
  void setSym(std::string expr, int64_t hint) {
    sym_expr_ = std::move(expr);
    sym_hint_ = hint;
  }

  // Constant payload of parameters, buffers and constants; null for computed values and
  // user inputs.
  const std::shared_ptr<const TensorData> &constant() const { return constant_; }
  bool isConstant() const { return constant_ != nullptr; }
  void setConstant(std::shared_ptr<const TensorData> data) { constant_ = std::move(data); }

  // Producing node (null for graph inputs and free constants) and which of its outputs.
  Node *producer() const { return producer_; }
  int producerOutput() const { return producer_output_; }

  // Nodes that read this value. A node appears once per argument slot that references the
  // value, so the count equals the number of uses.
  const std::vector<Node *> &users() const { return users_; }
  bool hasUsers() const { return !users_.empty(); }

private:
  friend class Graph;
  friend class Node;
  Value() = default;

  std::string name_;
  ValueKind kind_ = ValueKind::Tensor;
  DType dtype_ = DType::Unknown;
  Shape shape_;
  std::string sym_expr_;
  int64_t sym_hint_ = 0;
  std::shared_ptr<const TensorData> constant_;
  std::shared_ptr<const QuantParams> quant_;
  Node *producer_ = nullptr;
  int producer_output_ = 0;
  std::vector<Node *> users_;
};

} // namespace tico
