// Not a pattern: a whole-graph clean-up, rooted at no op.
// remove-unused-placeholder (the original's RemoveUnusedPlaceholder): constants that nothing
// reads any more are dropped. After the quantization bundle these are the float constants the
// bundle replaced: a float bias quantize-bias rewrote as int32/int64, a weight constant whose
// permuted quantized view propagate-qparam-forward made, the integer codes a per-channel
// dequantize left behind.
//
//   %b = const f32[8] ...            (no users)   -> removed
//   input %x: f32[4, 16]             (no users)   -> kept
//
// Model interface rules (as the original): runtime user inputs are never removed, used or not,
// since that would change the model's signature (the Circle model keeps them as inputs); inputs
// specialised to constants at export time are user inputs too, and stay.
//
// Difference from the original: the original also removes unused parameter, buffer and
// lifted-constant placeholders from the exported program's signature. In tico these are graph
// inputs of kind Parameter / Buffer / Constant, and the IR has no operation to remove a graph
// input (Graph only adds them), so they stay in the IR (--emit tir lists them). The Circle file
// is the same either way: the serializer writes only the tensors that operators read.
#include "quant_passes.h"

#include "tico/pass/pass.h"
#include "tico/support/log.h"

namespace tico::quant_passes {
namespace {

class RemoveUnusedPlaceholder final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    const std::size_t removed = graph.removeUnusedConstants();
    if (removed != 0)
      TICO_DEBUG << "remove-unused-placeholder: removed " << removed << " unused constant(s)";
    return removed != 0;
  }
};

} // namespace

void registerRemoveUnusedPlaceholder(Registrar &r) {
  PassSpec spec;
  spec.name = "remove-unused-placeholder";
  spec.summary = "Remove constants nothing reads any more (user inputs stay) (RemoveUnusedPlaceholder)";
  spec.create = [](const Options &) -> std::unique_ptr<Pass> { return std::make_unique<RemoveUnusedPlaceholder>(); };
  r.addPass(std::move(spec));
}

} // namespace tico::quant_passes
