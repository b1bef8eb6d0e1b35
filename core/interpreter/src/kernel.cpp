#include "kernel.h"

#include "quant/qparams.h"

#include "tico/ir/shape_utils.h"

#include <algorithm>
#include <cmath>

namespace tico::interp {

const CircleTensor &OpSignature::inputTensor(std::size_t i) const {
  if (!hasInput(i))
    throw Error("input " + std::to_string(i) + " is missing");
  return graph_.tensors.at(static_cast<std::size_t>(op_.inputs[i]));
}

const CircleTensor &OpSignature::outputTensor(std::size_t i) const {
  return graph_.tensors.at(static_cast<std::size_t>(op_.outputs.at(i)));
}

// 4-bit constants are unpacked when the model is prepared, so kernels see them as 8-bit.
DType OpSignature::inputType(std::size_t i) const {
  return hasInput(i) ? quant::elementTypeOf(inputTensor(i).type) : DType::Unknown;
}

DType OpSignature::outputType(std::size_t i) const { return quant::elementTypeOf(outputTensor(i).type); }

const Tensor &KernelContext::input(std::size_t i) const {
  if (!present(i))
    throw Error("input " + std::to_string(i) + " is required but " +
                (i < inputs_.size() ? "omitted (-1)" : "not given (" + std::to_string(inputs_.size()) + " inputs)"));
  return *inputs_[i];
}

Tensor &KernelContext::allocateOutput(std::size_t i, Shape shape) {
  return allocateOutput(i, outputType(i), std::move(shape));
}

Tensor &KernelContext::allocateOutput(std::size_t i, DType dtype, Shape shape) {
  check(i < outputs_.size(), "output " + std::to_string(i) + " is not declared (" +
                                 std::to_string(outputs_.size()) + " outputs)");
  if (i < planned_.size() && planned_[i].data != nullptr &&
      static_cast<std::size_t>(numElements(shape)) * elementSize(dtype) <= planned_[i].bytes) {
    outputs_[i] = Tensor{dtype, std::move(shape), arena_, planned_[i].data};
    return outputs_[i];
  }
  outputs_[i] = allocate(dtype, std::move(shape));
  return outputs_[i];
}

void KernelContext::setOutput(std::size_t i, Tensor tensor) {
  check(i < outputs_.size(), "output " + std::to_string(i) + " is not declared (" +
                                 std::to_string(outputs_.size()) + " outputs)");
  outputs_[i] = std::move(tensor);
}

void KernelTable::add(circle::BuiltinOperator op, RunFn run, CheckFn check, KernelTraits traits) {
  const int32_t code = static_cast<int32_t>(op);
  auto it = std::lower_bound(entries_.begin(), entries_.end(), code,
                             [](const auto &entry, int32_t c) { return entry.first < c; });
  if (it != entries_.end() && it->first == code)
    throw Error("interpreter: two kernels registered for " + builtinName(code));
  entries_.insert(it, {code, KernelInfo{run, check, traits}});
}

void KernelTable::addQuantized(circle::BuiltinOperator op, RunFn run, CheckFn check, KernelTraits traits) {
  const int32_t code = static_cast<int32_t>(op);
  auto it = std::lower_bound(quantized_.begin(), quantized_.end(), code,
                             [](const auto &entry, int32_t c) { return entry.first < c; });
  if (it != quantized_.end() && it->first == code)
    throw Error("interpreter: two quantized kernels registered for " + builtinName(code));
  quantized_.insert(it, {code, KernelInfo{run, check, traits}});
}

namespace {

const KernelInfo *findIn(const std::vector<std::pair<int32_t, KernelInfo>> &entries, int32_t code) {
  auto it = std::lower_bound(entries.begin(), entries.end(), code,
                             [](const auto &entry, int32_t c) { return entry.first < c; });
  return it != entries.end() && it->first == code ? &it->second : nullptr;
}

} // namespace

const KernelInfo *KernelTable::find(int32_t code) const { return findIn(entries_, code); }
const KernelInfo *KernelTable::findQuantized(int32_t code) const { return findIn(quantized_, code); }

bool touchesQuantizedTensors(const CircleSubGraph &graph, const CircleOperator &op) {
  auto quantized = [&](int32_t t) {
    return t >= 0 && static_cast<std::size_t>(t) < graph.tensors.size() &&
           quant::isQuantizedTensor(graph.tensors[static_cast<std::size_t>(t)]);
  };
  return std::any_of(op.inputs.begin(), op.inputs.end(), quantized) ||
         std::any_of(op.outputs.begin(), op.outputs.end(), quantized);
}

const KernelInfo *selectKernel(const KernelTable &table, const CircleModel &model, const CircleSubGraph &graph,
                               const CircleOperator &op) {
  const int32_t code = model.operator_codes[op.opcode_index].builtin_code;
  return touchesQuantizedTensors(graph, op) ? table.findQuantized(code) : table.find(code);
}

std::vector<int32_t> KernelTable::codes() const {
  std::vector<int32_t> out;
  for (const auto &entry : entries_)
    out.push_back(entry.first);
  return out;
}

std::string builtinName(int32_t code) {
  const char *name = circle::EnumNameBuiltinOperator(static_cast<circle::BuiltinOperator>(code));
  return name != nullptr && *name != '\0' ? name : "BUILTIN(" + std::to_string(code) + ")";
}

std::string requireInputType(const OpSignature &op, std::size_t i, std::initializer_list<DType> allowed) {
  if (!op.hasInput(i))
    return "";
  const DType type = op.inputType(i);
  if (std::find(allowed.begin(), allowed.end(), type) != allowed.end())
    return "";
  std::string list;
  for (DType t : allowed)
    list += (list.empty() ? "" : ", ") + dtypeString(t);
  return "input " + std::to_string(i) + " is " + dtypeString(type) + " (supported: " + list + ")";
}

std::string requireFloat32FirstTwoInputs(const OpSignature &op) {
  if (auto reason = requireInputType(op, 0, {DType::Float32}); !reason.empty())
    return reason;
  return requireInputType(op, 1, {DType::Float32});
}

int64_t normalizeAxis(int64_t axis, int64_t rank, std::string_view what) {
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= std::max<int64_t>(rank, 1) || (rank == 0 && normalized != 0))
    throw Error(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return normalized;
}

Shape broadcastShapes(const Shape &a, const Shape &b) {
  std::optional<Shape> out = broadcastSizes({a, b});
  if (!out)
    throw Error("shapes " + shapeString(a) + " and " + shapeString(b) + " cannot be broadcast together");
  return *out;
}

bool activationRange(circle::ActivationFunctionType activation, float &low, float &high) {
  low = -INFINITY;
  high = INFINITY;
  switch (activation) {
  case circle::ActivationFunctionType::NONE: return true;
  case circle::ActivationFunctionType::RELU: low = 0.0f; return true;
  case circle::ActivationFunctionType::RELU6: low = 0.0f; high = 6.0f; return true;
  case circle::ActivationFunctionType::RELU_N1_TO_1: low = -1.0f; high = 1.0f; return true;
  default: return false;
  }
}

void applyActivation(float *data, int64_t count, circle::ActivationFunctionType activation) {
  if (activation == circle::ActivationFunctionType::NONE)
    return;
  if (activation == circle::ActivationFunctionType::TANH) {
    for (int64_t i = 0; i < count; ++i)
      data[i] = std::tanh(data[i]);
    return;
  }
  float low, high;
  if (!activationRange(activation, low, high))
    throw Error(std::string("fused activation ") + circle::EnumNameActivationFunctionType(activation) +
                " is not supported");
  for (int64_t i = 0; i < count; ++i)
    data[i] = std::min(std::max(data[i], low), high);
}

} // namespace tico::interp
