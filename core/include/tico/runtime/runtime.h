// The runtime ABI: something that executes a Circle model on tensors.
//
// A plugin registers a RuntimeSpec through Registrar::addRuntime; the host looks it up by name
// (Registry::findRuntime) and never links the implementation. `tico-circle run --runtime NAME`
// executes a model on the runtime NAME, and the Circle pass fold-constants evaluates constant
// operators with a runtime's kernels, so a folded constant holds exactly what that runtime
// would have computed. The bundled runtime `builtin` (plugin builtin-runtime) wraps the
// built-in interpreter (docs/interpreter.md).
//
// Tensors cross this interface as tico::TensorData (dtype, shape, row-major bytes); nothing
// here depends on a particular runtime's headers.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/tensor_data.h"
#include "tico/runtime/runtime_spec.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tico {

// Signature of one subgraph input or output, as the model declares it (-1 = dynamic).
struct CircleTensorInfo {
  std::string name;
  DType dtype = DType::Unknown;
  std::vector<int64_t> shape; // shape_signature when present, else shape
};

// A model a runtime has checked and made ready to run.
class PreparedModel {
public:
  virtual ~PreparedModel() = default;

  // The declared interface of subgraph `subgraph`.
  virtual std::vector<CircleTensorInfo> inputs(uint32_t subgraph = 0) const = 0;
  virtual std::vector<CircleTensorInfo> outputs(uint32_t subgraph = 0) const = 0;

  // Runs subgraph `subgraph` on `inputs` (in the subgraph's input order) and returns its outputs
  // in order, as contiguous tensors the caller may keep. Throws tico::Error naming the problem
  // (a wrong input, an operator that fails). One run at a time per prepared model.
  virtual std::vector<std::shared_ptr<const TensorData>>
  run(const std::vector<std::shared_ptr<const TensorData>> &inputs, uint32_t subgraph = 0) = 0;
};

class Runtime {
public:
  virtual ~Runtime() = default;

  // Checks `model` as a whole and prepares it. Throws tico::Error listing what this runtime
  // cannot execute (unsupported operators, dtypes), before anything runs. The prepared model
  // may keep `model` (and the buffers it references) alive.
  virtual std::unique_ptr<PreparedModel> prepare(std::shared_ptr<const CircleModel> model) = 0;
};

} // namespace tico
