// Evaluation of the circle:: IR ops (and the circle_custom:: ops a .pt2 may carry) with LibTorch.
//
// These ops are created inside the ATen stages by the circle-legalize plugin (schemas in
// plugins/circle-lowering/circle_op_schemas.h) and lower 1:1 to Circle operators. Their
// arguments are PyTorch's attributes on channels-last data, so most of them run as the ATen op
// they stand for between two permutes; the ops with their own Circle semantics (resizing,
// GATHER_ND, SHAPE, RMS_NORM, ROPE, ATTENTION) compute what the Circle kernels compute.
// Backend only: includes torch through ivalue_conversion.h.
#pragma once

#include "ivalue_conversion.h"

#include "tico/support/error.h"

namespace tico::aten_eval {

// True for the namespaces of circle ops ("circle", "circle_custom"): their nodes never go
// to the dispatcher.
bool isCircleNamespace(const OpKey &op);
// True when the node is a circle op this evaluator implements (a circle_custom op: one that
// maps onto such a circle op, see plugins/circle-lowering/custom/circle_custom_ops.h).
bool hasCircleKernel(const Node &node);
// Runs a circle op; throws tico::Error naming the node (unknown op, bad arguments, LibTorch
// failures). A circle_custom op runs the kernel of its circle:: counterpart on the mapped
// arguments.
std::vector<EvalValue> evaluateCircleOp(const Node &node, const EvalEnv &env);

// The node's arguments as LibTorch values, by schema name (every circle op node has a schema,
// so every argument is present by name). `mapped`, when given, replaces the node's own
// arguments (a circle_custom node's arguments spelt as its circle:: op takes them).
class CircleArgs {
public:
  CircleArgs(const Node &node, const EvalEnv &env, const std::vector<NamedArg> *mapped = nullptr)
      : node_(node), env_(env), mapped_(mapped) {}

  const Node &node() const { return node_; }
  at::Tensor tensor(std::string_view name);
  std::optional<at::Tensor> optionalTensor(std::string_view name);
  // int[N]: a list, or one int for every element (an empty list stays empty).
  std::vector<int64_t> ints(std::string_view name, std::size_t n);
  std::optional<int64_t> optionalInt(std::string_view name);
  int64_t integer(std::string_view name);
  double real(std::string_view name);
  bool boolean(std::string_view name);
  std::string string(std::string_view name);
  // An error naming the node and op.
  Error error(const std::string &message) const;
  // The storages of the input tensors handed to LibTorch (results that are views share them).
  const InputStorages &storages() const { return storages_; }

private:
  const Argument &arg(std::string_view name) const;
  double scalarValue(std::string_view name, const Argument &arg);

  const Node &node_;
  const EvalEnv &env_;
  const std::vector<NamedArg> *mapped_;
  InputStorages storages_;
};

using CircleKernel = at::Tensor (*)(CircleArgs &args);

// The kernels of circle_ops_*.cpp, one per op (see the .cpp files for their semantics).
at::Tensor circleConv2d(CircleArgs &args);
at::Tensor circleConv2dPadding(CircleArgs &args);
at::Tensor circleDepthwiseConv2d(CircleArgs &args);
at::Tensor circleDepthwiseConv2dPadding(CircleArgs &args);
at::Tensor circleTransposeConv(CircleArgs &args);
at::Tensor circleMaxPool2d(CircleArgs &args);
at::Tensor circleAvgPool2d(CircleArgs &args);
at::Tensor circleInstanceNorm(CircleArgs &args);
at::Tensor circlePrelu(CircleArgs &args);
at::Tensor circleResizeNearestNeighbor(CircleArgs &args);
at::Tensor circleResizeBilinear(CircleArgs &args);
at::Tensor circleShape(CircleArgs &args);
at::Tensor circleGatherNd(CircleArgs &args);
at::Tensor circleRmsNorm(CircleArgs &args);
at::Tensor circleRope(CircleArgs &args);
at::Tensor circleAttention(CircleArgs &args);

} // namespace tico::aten_eval
