// The quantized_decomposed kernels (see quant_ops.h). Each follows PyTorch's Python
// implementation step by step: the same ATen ops on the same operand types give the same bits.
#include "quant_ops.h"

#include "circle_ops.h"

#include <c10/core/InferenceMode.h>

#include <limits>
#include <map>
#include <string>

namespace tico::aten_eval {
namespace {

struct QuantNode {
  const Node &node;
  CircleArgs &args; // argument access by schema name

  c10::ScalarType scalarType(std::string_view name) const {
    const Argument *a = node.findArg(name);
    if (a == nullptr || a->kind() != Argument::Kind::ScalarType)
      throw nodeError(node, "argument '" + std::string(name) + "' must be a dtype");
    return toScalarType(a->asScalarType());
  }
  std::optional<c10::ScalarType> optionalScalarType(std::string_view name) const {
    const Argument *a = node.findArg(name);
    if (a == nullptr || a->isNone())
      return std::nullopt;
    return scalarType(name);
  }
  // A number argument, or the one element of a tensor argument (the .tensor/.tensor2
  // overloads), as PyTorch's `.item()` reads it.
  c10::Scalar scalar(std::string_view name, bool from_tensor) const {
    if (!from_tensor) {
      const Argument *a = node.findArg(name);
      if (a != nullptr && a->isFloat())
        return c10::Scalar(args.real(name));
      return c10::Scalar(args.integer(name));
    }
    at::Tensor t = args.tensor(name);
    if (t.numel() != 1)
      throw nodeError(node, "'" + std::string(name) + "' must have one element, it has " + std::to_string(t.numel()));
    return t.item();
  }
};

// PyTorch's _quant_min_max_bounds_check: the range must fit the storage dtype.
void checkRange(const Node &node, int64_t quant_min, int64_t quant_max, c10::ScalarType dtype) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
  case c10::ScalarType::Byte: lo = 0, hi = 255; break;
  case c10::ScalarType::Char: lo = -128, hi = 127; break;
  case c10::ScalarType::UInt16: lo = 0, hi = 65535; break;
  case c10::ScalarType::Short: lo = -32768, hi = 32767; break;
  case c10::ScalarType::Int: lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max(); break;
  default: throw nodeError(node, std::string("unsupported quantized dtype ") + c10::toString(dtype));
  }
  if (quant_min < lo || quant_max > hi)
    throw nodeError(node, "quantization range [" + std::to_string(quant_min) + ", " + std::to_string(quant_max) +
                              "] is outside the range of " + c10::toString(dtype) + " [" + std::to_string(lo) + ", " +
                              std::to_string(hi) + "]");
}

at::Tensor floatInput(const Node &node, at::Tensor x) {
  if (x.scalar_type() == c10::ScalarType::Half || x.scalar_type() == c10::ScalarType::BFloat16)
    x = x.to(c10::ScalarType::Float);
  if (x.scalar_type() != c10::ScalarType::Float)
    throw nodeError(node, std::string("expects a float32 input, got ") + c10::toString(x.scalar_type()));
  return x;
}

void checkStorage(const Node &node, const at::Tensor &q, c10::ScalarType dtype) {
  if (q.scalar_type() != dtype)
    throw nodeError(node, std::string("expects an input of dtype ") + c10::toString(dtype) + ", got " +
                              c10::toString(q.scalar_type()));
}

// Overloads .tensor and .tensor2 take the qparams (and .tensor2 the range) as tensors.
bool qparamsAreTensors(const OpKey &op) { return op.overload == "tensor" || op.overload == "tensor2"; }
bool rangeIsTensor(const OpKey &op) { return op.overload == "tensor2"; }

at::Tensor quantizePerTensor(const QuantNode &n) {
  const OpKey &op = n.node.op();
  at::Tensor x = floatInput(n.node, n.args.tensor("input"));
  const c10::Scalar scale = n.scalar("scale", qparamsAreTensors(op));
  const c10::Scalar zero_point = n.scalar("zero_point", qparamsAreTensors(op));
  const c10::Scalar lo = n.scalar("quant_min", rangeIsTensor(op));
  const c10::Scalar hi = n.scalar("quant_max", rangeIsTensor(op));
  const c10::ScalarType dtype = n.scalarType("dtype");
  checkRange(n.node, lo.toLong(), hi.toLong(), dtype);
  const double inv_scale = 1.0 / scale.toDouble();
  return at::clamp(at::add(at::round(at::mul(x, inv_scale)), zero_point), lo, hi).to(dtype);
}

at::Tensor dequantizePerTensor(const QuantNode &n) {
  const OpKey &op = n.node.op();
  at::Tensor q = n.args.tensor("input");
  const c10::Scalar scale = n.scalar("scale", qparamsAreTensors(op));
  const c10::Scalar zero_point = n.scalar("zero_point", qparamsAreTensors(op));
  const c10::ScalarType dtype = n.scalarType("dtype");
  checkStorage(n.node, q, dtype);
  const c10::ScalarType out = n.optionalScalarType("out_dtype").value_or(c10::ScalarType::Float);
  return at::mul(at::sub(q.to(out), zero_point), scale);
}

// PyTorch's _permute_to_axis_zero: swaps `axis` and 0 (its own inverse).
std::vector<int64_t> swapWithZero(const Node &node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw nodeError(node, "axis " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank));
  if (axis < 0)
    axis += rank;
  std::vector<int64_t> perm(static_cast<std::size_t>(rank));
  for (int64_t i = 0; i < rank; ++i)
    perm[static_cast<std::size_t>(i)] = i;
  perm[static_cast<std::size_t>(axis)] = 0;
  perm[0] = axis;
  return perm;
}

// The per-channel qparams shaped [C, 1, ..., 1] against the permuted input.
at::Tensor channelView(const at::Tensor &qparams, const at::Tensor &scales, int64_t rank) {
  std::vector<int64_t> shape(static_cast<std::size_t>(rank), 1);
  shape[0] = scales.size(0);
  return qparams.view(shape);
}

at::Tensor quantizePerChannel(const QuantNode &n) {
  at::Tensor x = floatInput(n.node, n.args.tensor("input"));
  at::Tensor scales = n.args.tensor("scales");
  at::Tensor zero_points = n.args.tensor("zero_points");
  const int64_t lo = n.args.integer("quant_min"), hi = n.args.integer("quant_max");
  const c10::ScalarType dtype = n.scalarType("dtype");
  checkRange(n.node, lo, hi, dtype);
  const std::vector<int64_t> perm = swapWithZero(n.node, n.args.integer("axis"), x.dim());
  at::Tensor y = x.permute(perm);
  at::Tensor s = channelView(scales, scales, x.dim());
  at::Tensor z = channelView(zero_points, scales, x.dim());
  // `1.0 / scales` in Python is scales.reciprocal() * 1.0.
  at::Tensor inv = at::mul(at::reciprocal(s), 1.0);
  at::Tensor res = at::clamp(at::add(at::round(at::mul(y, inv)), z), lo, hi);
  return res.permute(perm).to(dtype);
}

at::Tensor dequantizePerChannel(const QuantNode &n) {
  at::Tensor q = n.args.tensor("input");
  at::Tensor scales = n.args.tensor("scales");
  std::optional<at::Tensor> zero_points = n.args.optionalTensor("zero_points");
  const int64_t lo = n.args.integer("quant_min"), hi = n.args.integer("quant_max");
  const c10::ScalarType dtype = n.scalarType("dtype");
  checkStorage(n.node, q, dtype);
  const c10::ScalarType out = n.optionalScalarType("out_dtype").value_or(c10::ScalarType::Float);
  checkRange(n.node, lo, hi, dtype);
  const std::vector<int64_t> perm = swapWithZero(n.node, n.args.integer("axis"), q.dim());
  at::Tensor y = q.permute(perm);
  at::Tensor s = channelView(scales, scales, q.dim());
  at::Tensor res = zero_points ? at::mul(at::sub(y, channelView(*zero_points, scales, q.dim())), s) : at::mul(y, s);
  return res.to(out).permute(perm);
}

using QuantKernel = at::Tensor (*)(const QuantNode &);

QuantKernel kernelFor(const OpKey &op) {
  if (op.ns != "quantized_decomposed")
    return nullptr;
  static const std::map<std::string, QuantKernel, std::less<>> kernels = {
      {"quantize_per_tensor", quantizePerTensor},
      {"dequantize_per_tensor", dequantizePerTensor},
      {"quantize_per_channel", quantizePerChannel},
      {"dequantize_per_channel", dequantizePerChannel},
  };
  auto it = kernels.find(op.name);
  if (it == kernels.end())
    return nullptr;
  // The per-channel ops have only .default; the per-tensor ones also .tensor and .tensor2.
  const bool per_tensor = op.name.ends_with("_per_tensor");
  if (op.overload == "default" || (per_tensor && qparamsAreTensors(op)))
    return it->second;
  return nullptr;
}

} // namespace

bool hasQuantKernel(const OpKey &op) { return kernelFor(op) != nullptr; }

std::vector<EvalValue> evaluateQuantOp(const Node &node, const EvalEnv &env) {
  QuantKernel kernel = kernelFor(node.op());
  if (kernel == nullptr)
    throw nodeError(node, "the evaluator has no implementation of this quantized_decomposed op");
  if (node.schema() == nullptr)
    throw nodeError(node, "a quantized_decomposed node without a schema (is the .pt2 frontend plugin loaded?)");
  c10::InferenceMode inference;
  CircleArgs args(node, env);
  at::Tensor result;
  reportingNode(node, [&] { result = kernel(QuantNode{node, args}).contiguous(); });
  std::vector<EvalValue> results;
  appendResults(node, result, args.storages(), results);
  return results;
}

} // namespace tico::aten_eval
