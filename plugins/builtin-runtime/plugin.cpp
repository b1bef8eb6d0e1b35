// Plugin builtin-runtime: registers the built-in Circle interpreter as the runtime `builtin`.
//
// The interpreter stays a library (the Python package and the kernel unit tests link it); this
// plugin only adapts it to the runtime ABI.
#include "tico/interpreter/interpreter.h"
#include "tico/plugin/plugin.h"
#include "tico/runtime/runtime.h"
#include "tico/support/error.h"

namespace {

class PreparedInterpreter final : public tico::PreparedModel {
public:
  PreparedInterpreter(std::shared_ptr<const tico::CircleModel> model, uint64_t max_loop_iterations)
      : interpreter_(std::move(model)) {
    interpreter_.setMaxLoopIterations(max_loop_iterations);
  }

  std::vector<tico::CircleTensorInfo> inputs(uint32_t subgraph) const override { return interpreter_.inputs(subgraph); }
  std::vector<tico::CircleTensorInfo> outputs(uint32_t subgraph) const override {
    return interpreter_.outputs(subgraph);
  }
  std::vector<std::shared_ptr<const tico::TensorData>>
  run(const std::vector<std::shared_ptr<const tico::TensorData>> &inputs, uint32_t subgraph) override {
    return interpreter_.run(inputs, subgraph);
  }

private:
  tico::CircleInterpreter interpreter_; // checks the whole model on construction
};

class BuiltinRuntime final : public tico::Runtime {
public:
  explicit BuiltinRuntime(uint64_t max_loop_iterations) : max_loop_iterations_(max_loop_iterations) {}
  std::unique_ptr<tico::PreparedModel> prepare(std::shared_ptr<const tico::CircleModel> model) override {
    return std::make_unique<PreparedInterpreter>(std::move(model), max_loop_iterations_);
  }

private:
  uint64_t max_loop_iterations_;
};

void registerAll(tico::Registrar &registrar) {
  registrar.addRuntime({"builtin",
                        "the built-in Circle interpreter (CPU; every operator the converter emits)",
                        {{"max_loop_iterations", tico::OptionType::Int,
                          static_cast<int64_t>(tico::kDefaultMaxLoopIterations),
                          "iterations one WHILE operator may run before the run fails (>= 1)"}},
                        [](const tico::Options &o) {
                          // Options a caller built without resolving them carry no value: the default.
                          const int64_t limit = o.has("max_loop_iterations")
                                                    ? o.getInt("max_loop_iterations")
                                                    : static_cast<int64_t>(tico::kDefaultMaxLoopIterations);
                          if (limit < 1)
                            throw tico::Error("runtime 'builtin': max_loop_iterations must be at least 1, not " +
                                              std::to_string(limit));
                          return std::make_unique<BuiltinRuntime>(static_cast<uint64_t>(limit));
                        }});
}

} // namespace

TICO_PLUGIN("builtin-runtime", "0.1.0", "Apache-2.0", registerAll)
