// Plugin builtin-runtime: registers the built-in Circle interpreter as the runtime `builtin`.
//
// The interpreter stays a library (the Python package and the kernel unit tests link it); this
// plugin only adapts it to the runtime ABI.
#include "tico/interpreter/interpreter.h"
#include "tico/plugin/plugin.h"
#include "tico/runtime/runtime.h"

namespace {

class PreparedInterpreter final : public tico::PreparedModel {
public:
  explicit PreparedInterpreter(std::shared_ptr<const tico::CircleModel> model) : interpreter_(std::move(model)) {}

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
  std::unique_ptr<tico::PreparedModel> prepare(std::shared_ptr<const tico::CircleModel> model) override {
    return std::make_unique<PreparedInterpreter>(std::move(model));
  }
};

void registerAll(tico::Registrar &registrar) {
  registrar.addRuntime({"builtin",
                        "the built-in Circle interpreter (CPU; every operator the converter emits)",
                        {},
                        [](const tico::Options &) { return std::make_unique<BuiltinRuntime>(); }});
}

} // namespace

TICO_PLUGIN("builtin-runtime", "0.1.0", "Apache-2.0", registerAll)
