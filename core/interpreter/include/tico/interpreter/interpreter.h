// The built-in Circle interpreter: runs a CircleModel on the CPU without the target NPU.
//
// It executes every operator the converter emits (Circle extension ops RMS_NORM, ROPE,
// ATTENTION and INSTANCE_NORM included), models with several subgraphs (IF, WHILE), and
// dynamic dimensions (shape_signature -1, bound from the actual input sizes), for float32,
// int32, int64 and bool tensors (and the other dtypes where a kernel supports them).
//
// Tools reach it through the runtime ABI (tico/runtime/runtime.h) as the runtime `builtin`
// (plugins/builtin-runtime); the Python package and tests link this library directly.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/tensor_data.h"
#include "tico/runtime/runtime.h" // CircleTensorInfo

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tico {

// Where the time of one run went, operator by operator (tico-circle bench). Operators of a
// subgraph that IF/WHILE call are listed too, once per execution, and their time is also part
// of the calling operator's.
struct OperatorTime {
  uint32_t subgraph = 0;
  uint32_t index = 0;  // operator index in its subgraph
  std::string op;      // builtin name, e.g. FULLY_CONNECTED
  double seconds = 0;  // wall time of the kernel
};

// How a subgraph's intermediates are laid out (the static memory plan, docs/interpreter.md):
// `planned` tensors share one arena of `arena_bytes` per run, which would be `tensor_bytes`
// without reuse; `in_place` operators write over an input they read for the last time. The
// other intermediates (unknown sizes, control flow, views returned to the caller) come from the
// buffer pool. All zero when planning is off (TICO_MEMORY_PLAN=0).
struct MemoryPlanSummary {
  std::size_t planned = 0;
  std::size_t arena_bytes = 0;
  std::size_t tensor_bytes = 0;
  std::size_t in_place = 0;
};

// A WHILE operator fails after this many iterations unless the limit is changed
// (setMaxLoopIterations, the builtin runtime's option max_loop_iterations).
inline constexpr uint64_t kDefaultMaxLoopIterations = 1000000;

class CircleInterpreter {
public:
  // Checks every operator against the kernels it has; throws tico::Error listing all
  // unsupported operators (op name, count) at once.
  explicit CircleInterpreter(std::shared_ptr<const CircleModel> model);
  ~CircleInterpreter();
  CircleInterpreter(CircleInterpreter &&) noexcept;
  CircleInterpreter &operator=(CircleInterpreter &&) noexcept;

  std::vector<CircleTensorInfo> inputs(uint32_t subgraph = 0) const;
  std::vector<CircleTensorInfo> outputs(uint32_t subgraph = 0) const;

  // Runs a subgraph. Inputs are given in the subgraph's input order; their count, dtype, rank
  // and static dimensions are checked with errors that name the input. Returns the outputs in
  // order, as owned contiguous tensors. Thread-compatible: one run at a time per instance.
  std::vector<std::shared_ptr<const TensorData>>
  run(const std::vector<std::shared_ptr<const TensorData>> &inputs, uint32_t subgraph = 0) const;
  // The same, appending every operator's time to `times` (in execution order).
  std::vector<std::shared_ptr<const TensorData>> run(const std::vector<std::shared_ptr<const TensorData>> &inputs,
                                                     uint32_t subgraph, std::vector<OperatorTime> &times) const;

  MemoryPlanSummary memoryPlan(uint32_t subgraph = 0) const;

  // The most iterations one WHILE operator may run (>= 1; default kDefaultMaxLoopIterations):
  // a run past it fails with an error naming the limit instead of running forever.
  void setMaxLoopIterations(uint64_t limit);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The original converter's CircleModel convenience API: load, save, call.
class RunnableCircleModel {
public:
  static RunnableCircleModel load(const std::string &path);
  explicit RunnableCircleModel(CircleModel model);

  void save(const std::string &path) const; // atomic, like every tico writer
  std::vector<std::shared_ptr<const TensorData>>
  run(const std::vector<std::shared_ptr<const TensorData>> &inputs) const;

  const CircleModel &model() const { return *model_; }

private:
  std::shared_ptr<const CircleModel> model_;
  // Built on the first run (which checks the model); mutable because run() is const. Like
  // CircleInterpreter, one run at a time per object.
  mutable std::shared_ptr<CircleInterpreter> interpreter_;
};

} // namespace tico
