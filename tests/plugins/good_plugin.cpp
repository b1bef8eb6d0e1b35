// A well-formed test plugin: one pass with an option, one lowering and the schema of the op it
// lowers, so the loader tests can follow every kind of entry into the registry.
#include "tico/lowering/lowering.h"
#include "tico/plugin/plugin.h"

namespace {

// Renames the graph; reports a change only when the name was different.
class RenameGraphPass : public tico::Pass {
public:
  explicit RenameGraphPass(std::string name) : name_(std::move(name)) {}
  bool run(tico::Graph &graph, tico::PassContext &) override {
    if (graph.name == name_)
      return false;
    graph.name = name_;
    return true;
  }

private:
  std::string name_;
};

// test_ns::good_op is an identity: its output is its input's tensor.
class IdentityLowering : public tico::OpLowering {
public:
  void lower(const tico::Node &node, tico::CircleEmitter &emit) const override {
    emit.alias(node.output(0), emit.tensor(node.input(0)));
  }
};

void registerAll(tico::Registrar &registrar) {
  registrar.addOpSchema("test_ns::good_op(Tensor self) -> Tensor");
  registrar.addPass({"test.rename-graph",
                     "renames the graph",
                     {{"name", tico::OptionType::String, std::string("renamed"), "new graph name"}},
                     [](const tico::Options &options) {
                       return std::make_unique<RenameGraphPass>(options.getString("name"));
                     }});
  registrar.addLowering({tico::OpKey("test_ns", "good_op"), "identity", 0,
                         std::make_shared<IdentityLowering>()});
}

} // namespace

TICO_PLUGIN("test-good", "1.0", "Apache-2.0", registerAll)
