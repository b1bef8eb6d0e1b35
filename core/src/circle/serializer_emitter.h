// The CircleEmitter the serializer hands to lowerings (internal to the core).
//
// It owns the CircleModel being built and maps IR values to Circle tensors:
//   * tensors are created lazily, the first time a lowering (or the interface setup) asks;
//   * constant values get a buffer that holds their TensorData itself (no copy), and two
//     constants whose TensorData are the same view of the same Storage share one tensor —
//     identity decides sharing, never equal contents;
//   * symbolic scalars (SymInt values) are int32 tensors of shape [1]; their producing nodes are
//     lowered on demand, when a lowering first asks for their tensor, so a RESHAPE that can
//     use -1 never drags a SHAPE computation into the model.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/graph.h"
#include "tico/ir/sym_expr.h"
#include "tico/lowering/lowering.h"

#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tico {

class Registry;

namespace circle_serializer {

// Nodes the main loop does not lower: nodes without outputs (runtime assertions left in the
// graph), nodes producing only symbolic scalars, and nodes whose tensor results are read only
// by such nodes (the SHAPE computations behind a SymInt). The latter two are lowered on
// demand, when a lowering asks for one of their results.
std::unordered_set<const Node *> deferredNodes(const Graph &graph);

// Export-time symbols whose range holds a single value (range_constraints min == max): dims
// over only those symbols are static.
class FixedSymbols {
public:
  explicit FixedSymbols(const Graph &graph);
  // The value of a dim expression when all its symbols are fixed, else nullopt.
  std::optional<int64_t> valueOf(const std::string &expr) const;

private:
  std::map<std::string, int64_t> values_;
  mutable std::map<std::string, SymExpr> parsed_;
};

class GraphEmitter final : public CircleEmitter {
public:
  GraphEmitter(const Graph &graph, const Registry &registry, const std::unordered_set<const Node *> &deferred);

  int32_t tensor(const Value *value) override;
  void alias(const Value *value, int32_t tensor) override;
  int32_t newTensor(DType dtype, const Shape &shape, const std::string &name_hint) override;
  int32_t constant(std::shared_ptr<const TensorData> data, const std::string &name_hint) override;
  void addOperator(circle::BuiltinOperator op, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                   circle::BuiltinOptionsUnion options = {}) override;
  CircleModel &model() override { return model_; }

  // Lowers one node through its highest-priority lowering that supports it and checks that
  // every used output got a tensor.
  void lowerNode(const Node &node);

  // A user input that torch.export specialised to a constant (a rank-0 or rank-1 tensor).
  int32_t constantInput(const std::string &name, const Argument &value);
  // A graph output that is a plain number.
  int32_t numberConstant(const Argument &value, const std::string &name_hint);
  // A fresh tensor with the same type and shape as `source`, written by an identity operator.
  int32_t identityCopy(int32_t source, const std::string &name_hint);

  bool isConstantTensor(int32_t tensor) const;
  CircleSubGraph &subgraph() { return model_.subgraphs.front(); }
  CircleModel release() { return std::move(model_); }

private:
  int32_t addTensor(CircleTensor tensor);
  int32_t tensorForValue(const Value *value);
  // A constant tensor for `data`, or the earlier tensor holding the same view. `name` is used
  // as is when `reserved_name` (a value's own name), else made unique. `owner` is the IR value
  // the constant belongs to (null for constants a lowering makes): its quantization
  // parameters go on the tensor, and a value sharing an earlier tensor must agree with them.
  int32_t constantTensor(std::shared_ptr<const TensorData> data, const std::string &name, bool reserved_name,
                         const Value *owner = nullptr);
  // The Circle record of a value's quantization parameters (null when it has none).
  std::shared_ptr<const circle::QuantizationParametersT> quantizationOf(const Value *value,
                                                                       const std::string &tensor_name) const;
  std::string uniqueName(const std::string &hint);
  void checkTensorIndex(int32_t index, bool allow_absent, const char *what) const;

  const Graph &graph_;
  const Registry &registry_;
  const std::unordered_set<const Node *> &deferred_;
  FixedSymbols fixed_;
  CircleModel model_;

  std::unordered_map<const Value *, int32_t> value_tensors_;
  std::unordered_set<const Node *> lowered_;
  std::unordered_set<const Node *> lowering_; // on the stack, to report cycles instead of looping
  // Constant tensors by storage, to find a previous tensor holding the same view, with the
  // name of the value (or lowering hint) that created it, for tied-weight messages.
  struct ConstantView {
    std::shared_ptr<const TensorData> data;
    int32_t tensor;
    std::string first_user;
  };
  std::unordered_map<const Storage *, std::vector<ConstantView>> views_;
  // Names in use: every value name of the graph is reserved up front, so tensors named after
  // lowering hints never take a name a value will claim later.
  std::unordered_set<std::string> names_;
};

} // namespace circle_serializer
} // namespace tico
