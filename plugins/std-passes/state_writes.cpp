// Not a pattern: it works on the export signature's mutation outputs, not on nodes of an op.
// state-writes: decides what becomes of the program's writes to its inputs, buffers and
// parameters (the mutation outputs of the export signature, which functionalize adds for a
// plain torch.export graph and run_decompositions() records itself).
//
// A Circle model has no state a call could leave behind, so by default (`mode=drop`) the
// writes are dropped: every output the model returns is still computed from the updated
// contents (a KV-cache read after its update sees the update), only the write-back is gone,
// and the computations that served nothing but the write-back become dead code. The log says
// which writes were dropped. `mode=outputs` returns the final contents of every written
// tensor as an extra Circle output after the model's own outputs, in signature order, so a
// runtime can carry the state (a KV cache) into the next call itself.
#include "pass_support.h"
#include "passes.h"

#include "tico/support/log.h"

namespace tico::passes {
namespace {

bool isMutation(OutputKind kind) {
  return kind == OutputKind::BufferMutation || kind == OutputKind::UserInputMutation ||
         kind == OutputKind::ParameterMutation;
}

const char *what(OutputKind kind) {
  switch (kind) {
  case OutputKind::BufferMutation:
    return "buffer";
  case OutputKind::ParameterMutation:
    return "parameter";
  default:
    return "input";
  }
}

class StateWritesPass final : public Pass {
public:
  explicit StateWritesPass(bool keep_as_outputs) : keep_(keep_as_outputs) {}

  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    // Mutation outputs come first in an export signature; as user outputs they go last.
    std::vector<GraphOutput> kept;
    for (std::size_t i = graph.outputs().size(); i-- > 0;) {
      const GraphOutput &out = graph.outputs()[i];
      if (!isMutation(out.kind))
        continue;
      if (keep_) {
        kept.insert(kept.begin(), GraphOutput{OutputKind::User, out.value, out.target});
        TICO_INFO << "state-writes: the new contents of " << what(out.kind) << " '" << out.target
                  << "' are returned as an extra output";
      } else {
        TICO_INFO << "state-writes: the program writes " << what(out.kind) << " '" << out.target
                  << "'; a Circle model keeps no state, so the write-back is dropped (outputs computed after "
                     "the write still see it; state-writes{mode=outputs} returns it)";
      }
      graph.eraseOutput(i);
      changed = true;
    }
    for (GraphOutput &out : kept)
      graph.addOutput(std::move(out));
    if (changed)
      graph.removeDeadNodes();
    return changed;
  }

private:
  bool keep_;
};

} // namespace

void registerStateWrites(Registrar &r) {
  PassSpec spec;
  spec.name = "state-writes";
  spec.summary = "Drop the program's writes to inputs, buffers and parameters (a Circle model has no state), or "
                 "return the written contents as extra outputs (mode=outputs)";
  spec.options = {OptionSpec{"mode", OptionType::String, std::string("drop"),
                             "drop: discard write-backs; outputs: return each written tensor's final contents as an "
                             "extra output after the model's outputs"}};
  spec.create = [](const Options &o) -> std::unique_ptr<Pass> {
    const std::string &mode = o.getString("mode");
    if (mode != "drop" && mode != "outputs")
      throw Error("state-writes: unknown mode '" + mode + "'; expected drop or outputs");
    return std::make_unique<StateWritesPass>(mode == "outputs");
  };
  r.addPass(std::move(spec));
}

} // namespace tico::passes
