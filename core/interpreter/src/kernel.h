// The kernel interface: what a kernel sees of the operator it executes, and the registry that
// maps Circle builtin codes to kernels.
//
// A kernel is a plain function. It reads its inputs, computes the output shapes from the
// actual input shapes (never from the model's static `shape`, so dynamic dimensions just
// work), allocates its outputs and fills them. Problems are reported by throwing tico::Error
// with a message about the operator's own terms ("filter has 3 channels, input has 4"); the
// interpreter prefixes the operator index, op name and output tensor.
#pragma once

#include "tensor.h"

#include "tico/circle/model.h"
#include "tico/support/error.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tico::interp {

// Runs another subgraph of the model (IF / WHILE bodies), and keeps what kernels prepare once.
class SubgraphRunner {
public:
  virtual ~SubgraphRunner() = default;
  virtual std::vector<Tensor> runSubgraph(uint32_t index, std::vector<Tensor> inputs) const = 0;
  virtual std::size_t subgraphCount() const = 0;
  // How many iterations one WHILE operator may run before the run fails (a loop whose condition
  // never turns false would otherwise run forever).
  virtual uint64_t maxLoopIterations() const = 0;
  // A slot a kernel may fill with what it derives from its operator's constants (per-channel
  // multipliers of a 262,144-unit head, a table's row scales) so later runs do not derive it
  // again. Empty until the first run sets it; it lives as long as the interpreter. Only touched
  // on the calling thread of a run (one run at a time per interpreter).
  virtual std::shared_ptr<const void> &operatorState(const CircleOperator &op) const = 0;
};

// operatorState as a T, built by make() the first time.
template <typename T, typename Make>
const T &preparedState(const SubgraphRunner &runner, const CircleOperator &op, Make &&make) {
  std::shared_ptr<const void> &slot = runner.operatorState(op);
  if (!slot)
    slot = std::make_shared<const T>(make());
  return *static_cast<const T *>(slot.get());
}

// The declared (model-level) view of one operator: what the construction-time checks see.
class OpSignature {
public:
  OpSignature(const CircleModel &model, const CircleSubGraph &graph, const CircleOperator &op)
      : model_(model), graph_(graph), op_(op) {}

  std::size_t inputCount() const { return op_.inputs.size(); }
  std::size_t outputCount() const { return op_.outputs.size(); }
  bool hasInput(std::size_t i) const { return i < op_.inputs.size() && op_.inputs[i] >= 0; }
  const CircleTensor &inputTensor(std::size_t i) const;
  const CircleTensor &outputTensor(std::size_t i) const;
  DType inputType(std::size_t i) const; // Unknown when the input is absent
  DType outputType(std::size_t i) const;
  const CircleOperator &op() const { return op_; }
  const CircleModel &model() const { return model_; }

  // Options of type T (the FlatBuffers object-API table); T's defaults when the operator has
  // none or another table.
  template <typename T> const T &options() const {
    if (op_.builtin_options.type == circle::BuiltinOptionsUnionTraits<T>::enum_value &&
        op_.builtin_options.value != nullptr)
      return *static_cast<const T *>(op_.builtin_options.value);
    static const T defaults{};
    return defaults;
  }

private:
  const CircleModel &model_;
  const CircleSubGraph &graph_;
  const CircleOperator &op_;
};

class KernelContext : public OpSignature {
public:
  KernelContext(const OpSignature &signature, std::vector<const Tensor *> inputs,
                std::vector<Tensor> &outputs, const SubgraphRunner &runner)
      : OpSignature(signature), inputs_(std::move(inputs)), outputs_(outputs), runner_(runner) {}

  // Memory the run planned for output `i` (memory_plan.h): allocateOutput places the output
  // there when it fits, instead of a buffer of its own. For an operator planned in place it is
  // the memory of the input it overwrites.
  struct PlannedOutput {
    std::byte *data = nullptr;
    std::size_t bytes = 0;
  };
  void planOutputs(std::vector<PlannedOutput> planned, std::shared_ptr<const void> arena) {
    planned_ = std::move(planned);
    arena_ = std::move(arena);
  }

  bool present(std::size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  // The input's tensor; throws when the operator omits it (-1) or has fewer inputs.
  const Tensor &input(std::size_t i) const;
  // Allocates output `i` with its declared dtype.
  Tensor &allocateOutput(std::size_t i, Shape shape);
  Tensor &allocateOutput(std::size_t i, DType dtype, Shape shape);
  void setOutput(std::size_t i, Tensor tensor);
  const SubgraphRunner &runner() const { return runner_; }

private:
  std::vector<const Tensor *> inputs_;
  std::vector<Tensor> &outputs_;
  const SubgraphRunner &runner_;
  std::vector<PlannedOutput> planned_;
  std::shared_ptr<const void> arena_;
};

using RunFn = void (*)(KernelContext &);
// Construction-time check on declared dtypes/options: "" when supported, else the reason.
using CheckFn = std::string (*)(const OpSignature &);

// What the memory plan (memory_plan.h) must know of a kernel's outputs.
struct KernelTraits {
  // Bit k: the kernel may write output 0 over input k when both have the same shape and dtype
  // (it reads element i before writing element i, and nothing else of that input afterwards).
  uint32_t in_place_inputs = 0;
  bool aliases_input0 = false; // output 0 is a view of input 0's bytes (setOutput of an alias)
  bool runs_subgraphs = false; // IF / WHILE: outputs may be the body's inputs
};

constexpr KernelTraits kInPlaceInput0{1u};
constexpr KernelTraits kInPlaceEitherInput{3u};
constexpr KernelTraits kAliasesInput0{0u, true};
constexpr KernelTraits kRunsSubgraphs{0u, false, true};

struct KernelInfo {
  RunFn run = nullptr;
  CheckFn check = nullptr;
  KernelTraits traits;
};

// Two kernels per operator at most: the plain one (float and integer tensors) and the quantized
// one, chosen at preparation for operators that read or write a quantized tensor (an integer
// tensor with scales). The quantized kernels compute in integers; an operator on quantized
// tensors without a quantized kernel is reported, never run on the raw codes.
class KernelTable {
public:
  void add(circle::BuiltinOperator op, RunFn run, CheckFn check = nullptr, KernelTraits traits = {});
  void addQuantized(circle::BuiltinOperator op, RunFn run, CheckFn check, KernelTraits traits = {});
  const KernelInfo *find(int32_t builtin_code) const;
  const KernelInfo *findQuantized(int32_t builtin_code) const;
  std::vector<int32_t> codes() const;

private:
  std::vector<std::pair<int32_t, KernelInfo>> entries_;
  std::vector<std::pair<int32_t, KernelInfo>> quantized_;
};

// True when the operator reads or writes a quantized tensor.
bool touchesQuantizedTensors(const CircleSubGraph &graph, const CircleOperator &op);
// The kernel for `op`: the quantized one when it touches quantized tensors, else the plain one;
// null when there is none.
const KernelInfo *selectKernel(const KernelTable &table, const CircleModel &model, const CircleSubGraph &graph,
                               const CircleOperator &op);

// Every kernel of the interpreter (built once, immutable afterwards).
const KernelTable &kernelTable();

// "ADD", "RMS_NORM", or "BUILTIN(<code>)" for codes our schema does not name.
std::string builtinName(int32_t code);

// ---- helpers shared by the kernels -------------------------------------------------------

// "" when input `i` is declared with one of `allowed`, else "input i is <dtype>; supported: ...".
std::string requireInputType(const OpSignature &op, std::size_t i, std::initializer_list<DType> allowed);

// The check of the float kernels whose inputs 0 and 1 (data and weights, or both operands)
// must be float32: "" or the first offending input's reason.
std::string requireFloat32FirstTwoInputs(const OpSignature &op);

// Throws tico::Error when `condition` is false; for shape and argument checks in kernels.
inline void check(bool condition, const std::string &message) {
  if (!condition)
    throw Error(message);
}

// Normalises a possibly negative axis against `rank`; throws when out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank, std::string_view what = "axis");

// NumPy broadcasting of two shapes; throws naming both shapes when incompatible.
Shape broadcastShapes(const Shape &a, const Shape &b);

// Applies a fused activation in place (float32 data); throws for SIGN_BIT and unknown values.
void applyActivation(float *data, int64_t count, circle::ActivationFunctionType activation);
// The [min, max] clamp range of a fused activation that is a clamp (NONE/RELU/RELU6/N1_TO_1).
bool activationRange(circle::ActivationFunctionType activation, float &low, float &high);

} // namespace tico::interp
