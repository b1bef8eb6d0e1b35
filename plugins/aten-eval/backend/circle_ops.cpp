// The circle op table and argument access (see circle_ops.h).
#include "circle_ops.h"

#include "circle_custom_ops.h"
#include "node_inputs.h"

#include <c10/core/InferenceMode.h>

#include <map>
#include <variant>

namespace tico::aten_eval {
namespace {

// Keyed by canonical op text; circle_custom:: ops run the kernel of the circle:: op they map to.
const std::map<std::string, CircleKernel, std::less<>> &circleKernels() {
  static const std::map<std::string, CircleKernel, std::less<>> kernels = {
      {"circle::conv2d.default", circleConv2d},
      {"circle::conv2d.padding", circleConv2dPadding},
      {"circle::depthwise_conv2d.default", circleDepthwiseConv2d},
      {"circle::depthwise_conv2d.padding", circleDepthwiseConv2dPadding},
      {"circle::transpose_conv.default", circleTransposeConv},
      {"circle::maxpool2d.default", circleMaxPool2d},
      {"circle::avgpool2d.default", circleAvgPool2d},
      {"circle::instance_norm.default", circleInstanceNorm},
      {"circle::prelu.default", circlePrelu},
      {"circle::resize_nearest_neighbor.default", circleResizeNearestNeighbor},
      {"circle::resize_bilinear.default", circleResizeBilinear},
      {"circle::shape.default", circleShape},
      {"circle::gather_nd.default", circleGatherNd},
      {"circle::rms_norm.default", circleRmsNorm},
      {"circle::rope.default", circleRope},
      {"circle::attention.default", circleAttention},
  };
  return kernels;
}

CircleKernel kernelFor(const OpKey &op) {
  auto it = circleKernels().find(op.str());
  return it == circleKernels().end() ? nullptr : it->second;
}

} // namespace

bool isCircleNamespace(const OpKey &op) { return op.ns == "circle" || op.ns == "circle_custom"; }

bool hasCircleKernel(const Node &node) {
  if (!circle_ops::isCircleCustom(node.op()))
    return kernelFor(node.op()) != nullptr;
  try {
    auto mapped = circle_ops::mapCircleCustomOp(node);
    auto *call = std::get_if<circle_ops::CircleCall>(&mapped);
    return call != nullptr && kernelFor(call->op) != nullptr;
  } catch (const Error &) { // an argument of an unexpected kind: not evaluable
    return false;
  }
}

std::vector<EvalValue> evaluateCircleOp(const Node &node, const EvalEnv &env) {
  if (node.schema() == nullptr)
    throw nodeError(node, "a circle op node without a schema (is the circle-lowering plugin loaded?)");
  if (node.numOutputs() != 1)
    throw nodeError(node, "circle ops have one output, the node has " + std::to_string(node.numOutputs()));
  std::optional<circle_ops::CircleCall> call;
  if (circle_ops::isCircleCustom(node.op())) {
    auto mapped = circle_ops::mapCircleCustomOp(node);
    if (auto *reason = std::get_if<std::string>(&mapped))
      throw nodeError(node, "the evaluator has no implementation of this op: " + *reason);
    call = std::get<circle_ops::CircleCall>(std::move(mapped));
  }
  CircleKernel kernel = kernelFor(call ? call->op : node.op());
  if (kernel == nullptr)
    throw nodeError(node, "the evaluator has no implementation of this circle op");
  c10::InferenceMode inference;
  CircleArgs args(node, env, call ? &call->args : nullptr);
  at::Tensor result;
  reportingNode(node, [&] { result = kernel(args).contiguous(); });
  std::vector<EvalValue> results;
  appendResults(node, result, args.storages(), results);
  return results;
}

Error CircleArgs::error(const std::string &message) const { return nodeError(node_, message); }

const Argument &CircleArgs::arg(std::string_view name) const {
  if (mapped_ != nullptr) {
    for (const NamedArg &a : *mapped_)
      if (a.name == name)
        return a.value;
  } else if (const Argument *a = node_.findArg(name)) {
    return *a;
  }
  throw error("argument '" + std::string(name) + "' is missing");
}

double CircleArgs::scalarValue(std::string_view name, const Argument &a) {
  if (a.isNumber())
    return a.asDouble();
  if (a.isValue() && !a.asValue()->isTensor())
    return lookupScalar(node_, a.asValue(), env_);
  throw error("argument '" + std::string(name) + "' must be a number, got " + Argument::kindName(a.kind()));
}

at::Tensor CircleArgs::tensor(std::string_view name) {
  const Argument &a = arg(name);
  if (!a.isValue() || !a.asValue()->isTensor())
    throw error("argument '" + std::string(name) + "' must be a tensor, got " + Argument::kindName(a.kind()));
  return toTensor(*lookupTensor(node_, a.asValue(), env_), storages_);
}

std::optional<at::Tensor> CircleArgs::optionalTensor(std::string_view name) {
  if (arg(name).isNone())
    return std::nullopt;
  return tensor(name);
}

std::vector<int64_t> CircleArgs::ints(std::string_view name, std::size_t n) {
  const Argument &a = arg(name);
  switch (a.kind()) {
  case Argument::Kind::IntList:
    return a.asInts();
  case Argument::Kind::SymIntList: {
    std::vector<int64_t> out;
    for (const SymIntElem &e : a.asSymInts())
      out.push_back(e.sym ? static_cast<int64_t>(lookupScalar(node_, e.sym, env_)) : e.value);
    return out;
  }
  case Argument::Kind::Int:
  case Argument::Kind::Value:
    return std::vector<int64_t>(n, static_cast<int64_t>(scalarValue(name, a)));
  default:
    throw error("argument '" + std::string(name) + "' must be an int list, got " + Argument::kindName(a.kind()));
  }
}

std::optional<int64_t> CircleArgs::optionalInt(std::string_view name) {
  if (arg(name).isNone())
    return std::nullopt;
  return integer(name);
}

int64_t CircleArgs::integer(std::string_view name) { return static_cast<int64_t>(scalarValue(name, arg(name))); }

double CircleArgs::real(std::string_view name) { return scalarValue(name, arg(name)); }

bool CircleArgs::boolean(std::string_view name) { return scalarValue(name, arg(name)) != 0; }

std::string CircleArgs::string(std::string_view name) {
  const Argument &a = arg(name);
  if (a.kind() != Argument::Kind::String)
    throw error("argument '" + std::string(name) + "' must be a string, got " + Argument::kindName(a.kind()));
  return a.asString();
}

} // namespace tico::aten_eval
