// dce: removes operators none of whose outputs is read or is a subgraph output.
//
// Operators with effects beyond their outputs (control flow, calls, variables, random and
// custom ops) are always kept, and so are the subgraph interfaces: inputs are never pruned,
// so IF/WHILE bodies keep their arity and signatures stay valid. Tensors, buffers and
// operator codes left unused are removed later by `compact`.
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"

namespace tico::circle_passes {
namespace {

class DeadCodeElimination final : public CirclePass {
public:
  explicit DeadCodeElimination(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return forEachSubgraph(model, [](SubgraphEditor &editor) {
      // Backwards, so a chain of dead operators goes in one sweep when the order is
      // topological; repeated for inputs whose order is not.
      for (bool removed = true; removed;) {
        removed = false;
        for (int i = editor.operatorCount(); i-- > 0;) {
          if (!editor.alive(i) || editor.sideEffects(i))
            continue;
          bool used = false;
          for (int32_t t : editor.op(i).outputs)
            used |= editor.validTensor(t) && editor.useCount(t) > 0;
          if (!used) {
            editor.removeOp(i);
            removed = true;
          }
        }
      }
    });
  }
};

} // namespace

void registerDce(Registrar &r) {
  registerCirclePass<DeadCodeElimination>(
      r, "dce", "remove operators whose results are unused (effects, control flow and interfaces are kept)");
}

} // namespace tico::circle_passes
