// CircleInterpreter: checks a model once (kernels, indices, dataflow, constants), then runs
// subgraphs by calling one kernel per operator in model order.
#include "tico/interpreter/interpreter.h"

#include "buffer_pool.h"
#include "kernel.h"
#include "kernels/weight_only.h"
#include "memory_plan.h"
#include "model_check.h"
#include "quant/mx.h"
#include "quant/qparams.h"

#include "tico/support/error.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace tico {

using interp::Shape;
using interp::Tensor;

namespace {

struct CompiledOp {
  const CircleOperator *op = nullptr;
  const interp::KernelInfo *kernel = nullptr;
  std::string name;
  std::vector<int32_t> release; // tensors whose last reader is this operator
  std::vector<int64_t> output_offsets; // arena offset per output, -1 = not planned (memory_plan.h)
  // Not run: a DEQUANTIZE of a constant, computed once when the model was prepared, or one whose
  // readers read its integer input themselves (weight_only.h).
  bool folded = false;
  // The operator as this interpreter runs it, when it differs from the model's (a weight-only
  // reader pointed at the codes of the DEQUANTIZE it read); `op` points here then.
  std::unique_ptr<CircleOperator> rewired;
};

// An MX tensor (MXINT8 / MXFP4): float32 values MX quantize-dequantized when written.
struct MxTensor {
  circle::TensorType type = circle::TensorType::MXINT8;
  int64_t axis = 0;
};

struct CompiledSubgraph {
  const CircleSubGraph *graph = nullptr;
  std::vector<std::optional<MxTensor>> mx; // by tensor index
  std::vector<Tensor> constants; // by tensor index; undefined for non-constants
  std::vector<CompiledOp> ops;
  std::vector<Shape> declared;   // shape_signature (or shape) per tensor, -1 = dynamic
  interp::MemoryPlan plan;
};

// TICO_MEMORY_PLAN=0 leaves every intermediate to the buffer pool (for measuring the plan).
bool memoryPlanEnabled() {
  const char *value = std::getenv("TICO_MEMORY_PLAN");
  return value == nullptr || std::string(value) != "0";
}

Shape declaredShape(const CircleTensor &tensor) {
  const auto &dims = tensor.shape_signature.empty() ? tensor.shape : tensor.shape_signature;
  return Shape(dims.begin(), dims.end());
}

std::string tensorLabel(const CircleSubGraph &graph, int32_t index) {
  const std::string &name = graph.tensors[static_cast<std::size_t>(index)].name;
  return name.empty() ? "tensor #" + std::to_string(index) : "'" + name + "'";
}

// 4-bit weights are unpacked once, here, into one byte per element: kernels then read them like
// 8-bit weights, and no kernel repeats the unpacking on every run.
Tensor unpackedFourBit(const CircleSubGraph &graph, std::size_t index, const TensorData &data, DType dtype,
                       Shape shape) {
  const int64_t count = interp::numElements(shape);
  const auto expected = static_cast<std::size_t>((count + 1) / 2);
  if (data.nbytes() != expected)
    throw Error("constant 4-bit tensor " + tensorLabel(graph, static_cast<int32_t>(index)) + " " +
                interp::shapeString(shape) + " needs " + std::to_string(expected) + " packed bytes but its buffer holds " +
                std::to_string(data.nbytes()));
  const std::vector<std::byte> packed = data.contiguousBytes();
  const std::vector<std::byte> bytes = interp::quant::unpackFourBit(packed, count, dtype == DType::Int8);
  Tensor unpacked = interp::allocate(dtype, std::move(shape));
  std::memcpy(unpacked.mut<uint8_t>(), bytes.data(), bytes.size());
  return unpacked;
}

// Constant payloads become views (copied only when the buffer is a non-contiguous view, e.g. a
// permuted weight straight from the serializer).
Tensor constantTensor(const CircleModel &model, const CircleSubGraph &graph, std::size_t index) {
  const CircleTensor &tensor = graph.tensors[index];
  const auto &data = model.buffers[tensor.buffer].data;
  const DType dtype = interp::quant::elementTypeOf(tensor.type);
  Shape shape(tensor.shape.begin(), tensor.shape.end());
  if (interp::quant::isPackedFourBit(tensor.type))
    return interp::numElements(shape) == 0 ? interp::allocate(dtype, std::move(shape)) // no bytes to unpack
                                           : unpackedFourBit(graph, index, *data, dtype, std::move(shape));
  const std::size_t expected = static_cast<std::size_t>(interp::numElements(shape)) * elementSize(dtype);
  if (expected == 0) // an empty constant (isConstant): nothing to read
    return interp::allocate(dtype, std::move(shape));
  if (data->nbytes() != expected)
    throw Error("constant tensor " + tensorLabel(graph, static_cast<int32_t>(index)) + " (" +
                interp::dtypeString(dtype) + interp::shapeString(shape) + ") needs " + std::to_string(expected) +
                " bytes but buffer " + std::to_string(tensor.buffer) + " holds " + std::to_string(data->nbytes()));
  if (data->isContiguous())
    return interp::view(dtype, std::move(shape), data->data(), data);
  Tensor copy = interp::allocate(dtype, std::move(shape));
  data->copyContiguousTo(copy.data);
  return copy;
}

// The model the kernels see: MX tensors become FLOAT32 tensors without a quantization record
// (their kernels are the float ones; runSubgraph applies the MX rounding to what they write),
// and `mx` records their format and axis. A model without MX tensors is used as it is.
std::shared_ptr<const CircleModel> withoutMxTypes(std::shared_ptr<const CircleModel> model,
                                                  std::vector<std::vector<std::optional<MxTensor>>> &mx) {
  if (!model)
    return model;
  mx.assign(model->subgraphs.size(), {});
  std::shared_ptr<CircleModel> copy;
  for (std::size_t s = 0; s < model->subgraphs.size(); ++s) {
    const CircleSubGraph &graph = model->subgraphs[s];
    mx[s].resize(graph.tensors.size());
    for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
      const CircleTensor &tensor = graph.tensors[t];
      if (!interp::quant::isMxType(tensor.type))
        continue;
      const std::string label = "MX tensor " + tensorLabel(graph, static_cast<int32_t>(t)) + " (" +
                                std::string(circle::EnumNameTensorType(tensor.type)) + ")";
      if (interp::isConstant(*model, tensor))
        throw Error(label + " is a constant: the interpreter runs MX activations only (packed MX payloads with "
                    "shared exponents are not read)");
      if (!tensor.quantization)
        throw Error(label + " has no quantization record (its quantized_dimension is the axis of the shared "
                    "exponents)");
      const int64_t axis = tensor.quantization->quantized_dimension;
      if (axis < 0 || axis >= static_cast<int64_t>(tensor.shape.size()))
        throw Error(label + " has quantized_dimension " + std::to_string(axis) + " outside its rank " +
                    std::to_string(tensor.shape.size()));
      if (!copy)
        copy = std::make_shared<CircleModel>(*model);
      CircleTensor &plain = copy->subgraphs[s].tensors[t];
      plain.type = circle::TensorType::FLOAT32;
      plain.quantization = nullptr;
      mx[s][t] = MxTensor{tensor.type, axis};
    }
  }
  if (!copy)
    return model;
  // QUANTIZE into an MX tensor (float -> MX, MX -> MX) computes nothing but the MX rounding,
  // which runSubgraph applies to the result: here it is a float32 -> float32 copy (CAST).
  for (std::size_t s = 0; s < copy->subgraphs.size(); ++s)
    for (CircleOperator &op : copy->subgraphs[s].operators) {
      const int32_t code = copy->operator_codes[op.opcode_index].builtin_code;
      if (code != static_cast<int32_t>(circle::BuiltinOperator::QUANTIZE) || op.outputs.size() != 1 ||
          op.inputs.size() != 1 || op.outputs[0] < 0 || op.inputs[0] < 0 ||
          static_cast<std::size_t>(op.outputs[0]) >= mx[s].size() || !mx[s][static_cast<std::size_t>(op.outputs[0])])
        continue;
      const CircleTensor &in = copy->subgraphs[s].tensors.at(static_cast<std::size_t>(op.inputs[0]));
      if (in.type != circle::TensorType::FLOAT32)
        throw Error("QUANTIZE into MX tensor " + tensorLabel(copy->subgraphs[s], op.outputs[0]) + " reads " +
                    tensorLabel(copy->subgraphs[s], op.inputs[0]) + " of type " +
                    std::string(circle::EnumNameTensorType(in.type)) + "; only float32 and MX inputs are supported");
      op.opcode_index = copy->operatorCodeIndex(circle::BuiltinOperator::CAST);
      op.builtin_options = circle::BuiltinOptionsUnion{};
    }
  return std::shared_ptr<const CircleModel>(std::move(copy));
}

} // namespace

struct CircleInterpreter::Impl final : interp::SubgraphRunner {
  std::shared_ptr<const CircleModel> model;
  std::vector<CompiledSubgraph> subgraphs;
  // Set for the duration of a profiled run (one run at a time per instance).
  mutable std::vector<OperatorTime> *times = nullptr;

  explicit Impl(std::shared_ptr<const CircleModel> m);
  std::vector<Tensor> runSubgraph(uint32_t index, std::vector<Tensor> inputs) const override;
  std::size_t subgraphCount() const override { return subgraphs.size(); }
  uint64_t max_loop_iterations = kDefaultMaxLoopIterations;
  uint64_t maxLoopIterations() const override { return max_loop_iterations; }
  std::shared_ptr<const void> &operatorState(const CircleOperator &op) const override { return op_state[&op]; }
  mutable std::unordered_map<const CircleOperator *, std::shared_ptr<const void>> op_state;
  void planSubgraph(CompiledSubgraph &compiled);
  void prepareConstantDequantize(CompiledSubgraph &compiled, std::size_t o,
                                 const std::vector<std::vector<std::size_t>> &readers, const std::vector<bool> &returned);
  bool readCodesInPlace(CompiledSubgraph &compiled, std::size_t o, const std::vector<std::size_t> &readers);
  void foldConstantDequantize(CompiledSubgraph &compiled, std::size_t o);
  // Constants are prepared once per model, not per subgraph: an LLM's prefill and decode
  // subgraphs read the same weights, unpacked or dequantized once.
  Tensor sharedConstant(const CircleSubGraph &graph, std::size_t index);
  std::map<std::tuple<uint32_t, int, interp::Shape>, Tensor> constant_cache;
  using DequantizeKey = std::tuple<uint32_t, int, int, std::vector<float>, std::vector<int64_t>, int32_t>;
  std::map<DequantizeKey, Tensor> dequantized_cache;
  void checkInputs(uint32_t index, const std::vector<std::shared_ptr<const TensorData>> &inputs) const;
};

CircleInterpreter::Impl::Impl(std::shared_ptr<const CircleModel> m) {
  if (!m)
    throw Error("interpreter: no model");
  std::vector<std::vector<std::optional<MxTensor>>> mx;
  model = withoutMxTypes(std::move(m), mx);
  interp::checkModelStructure(*model);
  interp::checkOperatorSupport(*model);

  const interp::KernelTable &kernels = interp::kernelTable();
  subgraphs.resize(model->subgraphs.size());
  for (std::size_t s = 0; s < model->subgraphs.size(); ++s) {
    const CircleSubGraph &graph = model->subgraphs[s];
    CompiledSubgraph &compiled = subgraphs[s];
    compiled.graph = &graph;
    compiled.mx = std::move(mx[s]);
    compiled.constants.resize(graph.tensors.size());
    compiled.declared.resize(graph.tensors.size());
    for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
      compiled.declared[t] = declaredShape(graph.tensors[t]);
      if (interp::isConstant(*model, graph.tensors[t]))
        compiled.constants[t] = sharedConstant(graph, t);
    }

    // Last reader of every computed tensor, so intermediates are freed as early as possible.
    std::vector<int64_t> last_use(graph.tensors.size(), -1);
    for (std::size_t o = 0; o < graph.operators.size(); ++o)
      for (int32_t input : graph.operators[o].inputs)
        if (input >= 0)
          last_use[static_cast<std::size_t>(input)] = static_cast<int64_t>(o);
    for (int32_t output : graph.outputs)
      last_use[static_cast<std::size_t>(output)] = static_cast<int64_t>(graph.operators.size());

    compiled.ops.resize(graph.operators.size());
    std::vector<std::vector<std::size_t>> readers(graph.tensors.size());
    for (std::size_t o = 0; o < graph.operators.size(); ++o) {
      const CircleOperator &op = graph.operators[o];
      const int32_t code = model->operator_codes[op.opcode_index].builtin_code;
      compiled.ops[o].op = &op;
      compiled.ops[o].kernel = interp::selectKernel(kernels, *model, graph, op);
      compiled.ops[o].name = interp::builtinName(code);
      for (int32_t input : op.inputs)
        if (input >= 0 && (readers[static_cast<std::size_t>(input)].empty() ||
                           readers[static_cast<std::size_t>(input)].back() != o))
          readers[static_cast<std::size_t>(input)].push_back(o);
    }
    std::vector<bool> returned(graph.tensors.size(), false);
    for (int32_t output : graph.outputs)
      returned[static_cast<std::size_t>(output)] = true;
    for (std::size_t o = 0; o < graph.operators.size(); ++o)
      if (model->operator_codes[graph.operators[o].opcode_index].builtin_code ==
          static_cast<int32_t>(circle::BuiltinOperator::DEQUANTIZE))
        prepareConstantDequantize(compiled, o, readers, returned);
    for (std::size_t t = 0; t < graph.tensors.size(); ++t)
      if (last_use[t] >= 0 && last_use[t] < static_cast<int64_t>(graph.operators.size()) &&
          !compiled.constants[t].defined())
        compiled.ops[static_cast<std::size_t>(last_use[t])].release.push_back(static_cast<int32_t>(t));
    if (memoryPlanEnabled())
      planSubgraph(compiled);
  }
}

Tensor CircleInterpreter::Impl::sharedConstant(const CircleSubGraph &graph, std::size_t index) {
  const CircleTensor &tensor = graph.tensors[index];
  auto key = std::make_tuple(tensor.buffer, static_cast<int>(tensor.type), interp::Shape(tensor.shape.begin(), tensor.shape.end()));
  auto it = constant_cache.find(key);
  if (it == constant_cache.end())
    it = constant_cache.emplace(std::move(key), constantTensor(*model, graph, index)).first;
  return it->second;
}

// A DEQUANTIZE of a constant (integer weights that float operators read: weight-only
// quantization) is not computed on every run. When each of its readers is a FULLY_CONNECTED or
// GATHER that reads the codes itself (weight_only.h), the readers are pointed at the codes and
// the DEQUANTIZE never runs; otherwise it is folded.
void CircleInterpreter::Impl::prepareConstantDequantize(CompiledSubgraph &compiled, std::size_t o,
                                                        const std::vector<std::vector<std::size_t>> &readers,
                                                        const std::vector<bool> &returned) {
  const CircleOperator &op = *compiled.ops[o].op;
  if (compiled.ops[o].kernel == nullptr || op.inputs.size() != 1 || op.inputs[0] < 0 || op.outputs.size() != 1)
    return;
  const auto in = static_cast<std::size_t>(op.inputs[0]), out = static_cast<std::size_t>(op.outputs[0]);
  if (!compiled.constants[in].defined() || compiled.mx[out].has_value())
    return;
  if (!returned[out] && !readers[out].empty() && readCodesInPlace(compiled, o, readers[out]))
    return;
  foldConstantDequantize(compiled, o);
}

bool CircleInterpreter::Impl::readCodesInPlace(CompiledSubgraph &compiled, std::size_t o,
                                               const std::vector<std::size_t> &readers) {
  const CircleSubGraph &graph = *compiled.graph;
  const CircleOperator &dequantize = *compiled.ops[o].op;
  const int32_t codes = dequantize.inputs[0], dequantized = dequantize.outputs[0];
  std::vector<const interp::KernelInfo *> kernels;
  for (std::size_t r : readers) {
    const interp::KernelInfo *kernel = interp::weightOnlyKernelFor(
        *model, graph, *compiled.ops[r].op, dequantized, graph.tensors[static_cast<std::size_t>(codes)]);
    if (kernel == nullptr)
      return false;
    kernels.push_back(kernel);
  }
  for (std::size_t i = 0; i < readers.size(); ++i) {
    CompiledOp &reader = compiled.ops[readers[i]];
    auto rewired = std::make_unique<CircleOperator>(*reader.op);
    std::replace(rewired->inputs.begin(), rewired->inputs.end(), dequantized, codes);
    reader.op = rewired.get();
    reader.rewired = std::move(rewired);
    reader.kernel = kernels[i];
  }
  compiled.ops[o].folded = true; // nothing reads its output any more
  return true;
}

// The DEQUANTIZE is computed once, here, like TFLite's DEQUANTIZE does in its Prepare: its result
// becomes a constant of every run instead of being recomputed (and reallocated) each time. The
// price is the float copy of those weights, held while the interpreter lives (once per model:
// subgraphs that dequantize the same constant share it).
void CircleInterpreter::Impl::foldConstantDequantize(CompiledSubgraph &compiled, std::size_t o) {
  CompiledOp &step = compiled.ops[o];
  const CircleOperator &op = *step.op;
  if (step.kernel == nullptr || op.inputs.size() != 1 || op.inputs[0] < 0 || op.outputs.size() != 1)
    return;
  const auto in = static_cast<std::size_t>(op.inputs[0]), out = static_cast<std::size_t>(op.outputs[0]);
  if (!compiled.constants[in].defined() || compiled.mx[out].has_value())
    return;
  const CircleTensor &source = compiled.graph->tensors[in];
  DequantizeKey key{source.buffer, static_cast<int>(source.type),
                    static_cast<int>(compiled.graph->tensors[out].type), {}, {}, 0};
  if (source.quantization)
    key = DequantizeKey{source.buffer, static_cast<int>(source.type), static_cast<int>(compiled.graph->tensors[out].type),
                        source.quantization->scale, source.quantization->zero_point,
                        source.quantization->quantized_dimension};
  if (auto cached = dequantized_cache.find(key); cached != dequantized_cache.end()) {
    compiled.constants[out] = cached->second;
    step.folded = true;
    return;
  }
  std::vector<Tensor> outputs(1);
  interp::OpSignature signature(*model, *compiled.graph, op);
  try {
    interp::KernelContext context(signature, {&compiled.constants[in]}, outputs, *this);
    step.kernel->run(context);
  } catch (const std::exception &error) {
    throw Error("operator #" + std::to_string(o) + " (DEQUANTIZE of constant " + tensorLabel(*compiled.graph, op.inputs[0]) +
                "): " + error.what());
  }
  compiled.constants[out] = std::move(outputs[0]);
  dequantized_cache.emplace(std::move(key), compiled.constants[out]);
  step.folded = true;
}

// The arena offsets of the subgraph's intermediates (memory_plan.h); MX tensors are left out
// (their values are replaced after the kernel runs).
void CircleInterpreter::Impl::planSubgraph(CompiledSubgraph &compiled) {
  const CircleSubGraph &graph = *compiled.graph;
  std::vector<interp::PlanTensor> tensors(graph.tensors.size());
  for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
    const Shape &shape = compiled.declared[t];
    const bool known = std::none_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; });
    if (known)
      tensors[t].bytes = static_cast<std::size_t>(interp::numElements(shape)) *
                         elementSize(interp::quant::elementTypeOf(graph.tensors[t].type));
    tensors[t].external = compiled.constants[t].defined() || compiled.mx[t].has_value();
  }
  for (int32_t t : graph.inputs)
    tensors[static_cast<std::size_t>(t)].external = true;
  for (int32_t t : graph.outputs)
    tensors[static_cast<std::size_t>(t)].external = true;
  std::vector<interp::PlanOperator> ops(compiled.ops.size());
  for (std::size_t o = 0; o < ops.size(); ++o) {
    const CircleOperator &op = *compiled.ops[o].op;
    if (compiled.ops[o].folded) { // never runs: its output is a constant or read by nobody
      for (int32_t t : op.outputs)
        tensors[static_cast<std::size_t>(t)].external = true;
      continue;
    }
    const interp::KernelTraits &traits = compiled.ops[o].kernel->traits;
    ops[o] = {op.inputs, op.outputs, traits.aliases_input0, traits.runs_subgraphs, traits.in_place_inputs};
  }
  compiled.plan = interp::planMemory(tensors, ops);
  for (CompiledOp &op : compiled.ops)
    for (int32_t t : op.op->outputs)
      op.output_offsets.push_back(compiled.plan.offset[static_cast<std::size_t>(t)]);
}

std::vector<Tensor> CircleInterpreter::Impl::runSubgraph(uint32_t index, std::vector<Tensor> inputs) const {
  // IF/WHILE nest subgraph runs; a model whose subgraphs call each other without end must fail
  // with a message, not overflow the stack.
  constexpr int kMaxDepth = 64;
  thread_local int depth = 0;
  if (depth >= kMaxDepth)
    throw Error("subgraphs nest more than " + std::to_string(kMaxDepth) +
                " levels deep (does a subgraph call itself through IF/WHILE?)");
  struct DepthGuard {
    int &d;
    explicit DepthGuard(int &value) : d(value) { ++d; }
    ~DepthGuard() { --d; }
  } guard(depth);
  if (index >= subgraphs.size())
    throw Error("subgraph " + std::to_string(index) + " does not exist (the model has " +
                std::to_string(subgraphs.size()) + ")");
  const CompiledSubgraph &compiled = subgraphs[index];
  const CircleSubGraph &graph = *compiled.graph;
  if (inputs.size() != graph.inputs.size())
    throw Error("subgraph " + std::to_string(index) + " takes " + std::to_string(graph.inputs.size()) +
                " inputs, got " + std::to_string(inputs.size()));

  std::vector<Tensor> values(graph.tensors.size());
  std::vector<const Tensor *> slot(graph.tensors.size(), nullptr);
  for (std::size_t t = 0; t < graph.tensors.size(); ++t)
    if (compiled.constants[t].defined())
      slot[t] = &compiled.constants[t];
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto t = static_cast<std::size_t>(graph.inputs[i]);
    values[t] = std::move(inputs[i]);
    if (const auto &mx = compiled.mx[t]) // an MX model input holds MX values
      values[t] = interp::quant::mxQuantizeDequantize(values[t], mx->type, mx->axis);
    slot[t] = &values[t];
  }

  // One arena per run for the planned intermediates, from the buffer pool (so a second run
  // reuses the pages of the first).
  std::shared_ptr<std::byte> arena;
  if (compiled.plan.arena_bytes > 0)
    arena = interp::acquireBuffer(compiled.plan.arena_bytes);
  std::vector<interp::KernelContext::PlannedOutput> planned;

  std::vector<Tensor> outputs;
  for (std::size_t o = 0; o < compiled.ops.size(); ++o) {
    const CompiledOp &step = compiled.ops[o];
    if (step.folded)
      continue; // its output is a constant (slot set above)
    const CircleOperator &op = *step.op;
    std::vector<const Tensor *> args(op.inputs.size(), nullptr);
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
      if (op.inputs[i] >= 0)
        args[i] = slot[static_cast<std::size_t>(op.inputs[i])];
    outputs.assign(op.outputs.size(), Tensor{});

    auto context = [&] {
      std::string where = "operator #" + std::to_string(o) + " (" + step.name + ")";
      if (subgraphs.size() > 1)
        where += " in subgraph " + std::to_string(index);
      if (!op.outputs.empty())
        where += " -> " + tensorLabel(graph, op.outputs[0]);
      return where;
    };
    interp::OpSignature signature(*model, graph, op);
    try {
      interp::KernelContext kernel_context(signature, std::move(args), outputs, *this);
      if (arena) {
        planned.assign(op.outputs.size(), {});
        for (std::size_t k = 0; k < op.outputs.size(); ++k)
          if (const int64_t offset = step.output_offsets[k]; offset >= 0)
            planned[k] = {arena.get() + offset, compiled.plan.bytesOf(op.outputs[k])};
        kernel_context.planOutputs(std::move(planned), arena);
      }
      if (times == nullptr) {
        step.kernel->run(kernel_context);
      } else {
        const auto start = std::chrono::steady_clock::now();
        step.kernel->run(kernel_context);
        const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
        times->push_back({index, static_cast<uint32_t>(o), step.name, spent.count()});
      }
    } catch (const Error &error) {
      throw Error(context() + ": " + error.what());
    } catch (const std::bad_alloc &) {
      throw Error(context() + ": out of memory");
    } catch (const std::exception &error) { // e.g. std::out_of_range from a malformed operator
      throw Error(context() + ": " + error.what());
    }

    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const auto t = static_cast<std::size_t>(op.outputs[k]);
      Tensor &out = outputs[k];
      const DType declared_type = interp::quant::elementTypeOf(graph.tensors[t].type);
      if (!out.defined())
        throw Error(context() + ": the kernel produced no output " + std::to_string(k));
      if (out.dtype != declared_type)
        throw Error(context() + ": output " + tensorLabel(graph, op.outputs[k]) + " is " +
                    interp::dtypeString(out.dtype) + " but the model declares " + interp::dtypeString(declared_type));
      const Shape &declared = compiled.declared[t];
      // A declared rank-0 shape may also mean "unknown" in files from other tools: only
      // tensors declared with a rank are checked.
      if (!declared.empty()) {
        bool matches = declared.size() == out.shape.size();
        for (std::size_t d = 0; matches && d < declared.size(); ++d)
          matches = declared[d] < 0 || declared[d] == out.shape[d];
        if (!matches)
          throw Error(context() + ": computed shape " + interp::shapeString(out.shape) + " of output " +
                      tensorLabel(graph, op.outputs[k]) + " does not match the declared " +
                      interp::shapeString(declared));
      }
      values[t] = std::move(out);
      if (const auto &mx = compiled.mx[t]) // the kernel computed in float32; the tensor holds MX values
        values[t] = interp::quant::mxQuantizeDequantize(values[t], mx->type, mx->axis);
      slot[t] = &values[t];
    }
    for (int32_t t : step.release) {
      values[static_cast<std::size_t>(t)] = Tensor{};
      slot[static_cast<std::size_t>(t)] = nullptr;
    }
  }

  std::vector<Tensor> results;
  results.reserve(graph.outputs.size());
  for (int32_t t : graph.outputs) {
    const Tensor *value = slot[static_cast<std::size_t>(t)];
    if (value == nullptr || !value->defined())
      throw Error("subgraph " + std::to_string(index) + " output " + tensorLabel(graph, t) + " was never computed");
    results.push_back(*value);
  }
  return results;
}

void CircleInterpreter::Impl::checkInputs(uint32_t index,
                                          const std::vector<std::shared_ptr<const TensorData>> &inputs) const {
  if (index >= subgraphs.size())
    throw Error("subgraph " + std::to_string(index) + " does not exist (the model has " +
                std::to_string(subgraphs.size()) + ")");
  const CircleSubGraph &graph = *subgraphs[index].graph;
  if (inputs.size() != graph.inputs.size())
    throw Error("the model takes " + std::to_string(graph.inputs.size()) + " input" +
                (graph.inputs.size() == 1 ? "" : "s") + ", got " + std::to_string(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const CircleTensor &tensor = graph.tensors[static_cast<std::size_t>(graph.inputs[i])];
    const std::string label = "input " + std::to_string(i) + " '" + tensor.name + "'";
    if (!inputs[i])
      throw Error(label + " is null");
    const TensorData &given = *inputs[i];
    const DType expected = fromCircleType(tensor.type);
    if (given.dtype != expected)
      throw Error(label + ": dtype " + interp::dtypeString(given.dtype) + " given, the model expects " +
                  interp::dtypeString(expected));
    const Shape declared = subgraphs[index].declared[static_cast<std::size_t>(graph.inputs[i])];
    if (given.sizes.size() != declared.size())
      throw Error(label + ": rank " + std::to_string(given.sizes.size()) + " given (shape " +
                  interp::shapeString(given.sizes) + "), the model expects rank " + std::to_string(declared.size()) +
                  " (shape " + interp::shapeString(declared) + ")");
    for (std::size_t d = 0; d < declared.size(); ++d) {
      if (given.sizes[d] < 0)
        throw Error(label + ": negative dimension in shape " + interp::shapeString(given.sizes));
      if (declared[d] >= 0 && given.sizes[d] != declared[d])
        throw Error(label + ": dimension " + std::to_string(d) + " is " + std::to_string(given.sizes[d]) +
                    ", the model expects " + std::to_string(declared[d]) + " (shape " +
                    interp::shapeString(declared) + ", given " + interp::shapeString(given.sizes) + ")");
    }
    given.checkBounds();
  }
}

CircleInterpreter::CircleInterpreter(std::shared_ptr<const CircleModel> model)
    : impl_(std::make_unique<Impl>(std::move(model))) {}
CircleInterpreter::~CircleInterpreter() = default;
CircleInterpreter::CircleInterpreter(CircleInterpreter &&) noexcept = default;
CircleInterpreter &CircleInterpreter::operator=(CircleInterpreter &&) noexcept = default;

namespace {

std::vector<CircleTensorInfo> interfaceInfo(const CircleModel &model, uint32_t subgraph,
                                            const std::vector<int32_t> CircleSubGraph::*which) {
  if (subgraph >= model.subgraphs.size())
    throw Error("subgraph " + std::to_string(subgraph) + " does not exist (the model has " +
                std::to_string(model.subgraphs.size()) + ")");
  const CircleSubGraph &graph = model.subgraphs[subgraph];
  std::vector<CircleTensorInfo> out;
  for (int32_t index : graph.*which) {
    const CircleTensor &tensor = graph.tensors[static_cast<std::size_t>(index)];
    out.push_back({tensor.name, fromCircleType(tensor.type), declaredShape(tensor)});
  }
  return out;
}

} // namespace

void CircleInterpreter::setMaxLoopIterations(uint64_t limit) {
  if (limit == 0)
    throw Error("the WHILE iteration limit must be at least 1");
  impl_->max_loop_iterations = limit;
}

MemoryPlanSummary CircleInterpreter::memoryPlan(uint32_t subgraph) const {
  if (subgraph >= impl_->subgraphs.size())
    throw Error("subgraph " + std::to_string(subgraph) + " does not exist (the model has " +
                std::to_string(impl_->subgraphs.size()) + ")");
  const interp::MemoryPlan &plan = impl_->subgraphs[subgraph].plan;
  return {plan.planned, plan.arena_bytes, plan.tensor_bytes, plan.in_place};
}

std::vector<CircleTensorInfo> CircleInterpreter::inputs(uint32_t subgraph) const {
  return interfaceInfo(*impl_->model, subgraph, &CircleSubGraph::inputs);
}

std::vector<CircleTensorInfo> CircleInterpreter::outputs(uint32_t subgraph) const {
  return interfaceInfo(*impl_->model, subgraph, &CircleSubGraph::outputs);
}

std::vector<std::shared_ptr<const TensorData>>
CircleInterpreter::run(const std::vector<std::shared_ptr<const TensorData>> &inputs, uint32_t subgraph,
                       std::vector<OperatorTime> &times) const {
  struct Reset {
    Impl &impl;
    ~Reset() { impl.times = nullptr; }
  } reset{*impl_};
  impl_->times = &times;
  return run(inputs, subgraph);
}

std::vector<std::shared_ptr<const TensorData>>
CircleInterpreter::run(const std::vector<std::shared_ptr<const TensorData>> &inputs, uint32_t subgraph) const {
  impl_->checkInputs(subgraph, inputs);
  std::vector<Tensor> tensors;
  tensors.reserve(inputs.size());
  for (const auto &input : inputs) {
    if (input->isContiguous()) {
      tensors.push_back(interp::view(input->dtype, input->sizes, input->data(), input));
    } else {
      Tensor copy = interp::allocate(input->dtype, input->sizes);
      input->copyContiguousTo(copy.data);
      tensors.push_back(std::move(copy));
    }
  }
  std::vector<Tensor> results = impl_->runSubgraph(subgraph, std::move(tensors));

  std::vector<std::shared_ptr<const TensorData>> outputs;
  outputs.reserve(results.size());
  for (Tensor &result : results) {
    auto data = std::make_shared<TensorData>();
    data->dtype = result.dtype;
    data->sizes = result.shape;
    data->strides = TensorData::contiguousStrides(result.shape);
    data->storage = result.data != nullptr
                        ? Storage::fromExternal(result.data, result.nbytes(), result.owner)
                        : Storage::fromBytes({});
    outputs.push_back(std::move(data));
  }
  return outputs;
}

} // namespace tico
