// cast-clamp-mixed-type-args (CastClampMixedTypeArgs): clamp whose input or bounds have a dtype
// other than its result's (clamp promotes: clamp(int_x, 0.5) is float) gets them converted:
//   input or tensor bound of another dtype -> _to_copy(.., dtype=result)
//   number bound of another kind           -> the number of the result's kind (0 -> 0.0)
// so MAXIMUM/MINIMUM see one dtype. PyTorch computes in the result dtype too.
#include "pass_support.h"
#include "passes.h"

#include <cmath>

namespace tico::passes {
namespace {

class CastClampMixedTypeArgsPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &context) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::clamp.default", "aten::clamp.Tensor"}) || !isTensorValue(node->arg(0)))
        continue;
      const DType result = node->output()->dtype();
      for (const char *name : {"self", "min", "max"}) {
        const Argument arg = node->arg(name);
        if (isTensorValue(arg)) {
          if (arg.asValue()->dtype() == result)
            continue;
          Builder b(graph, context.registry(), node, node->name());
          node->setArg(name, A(b.cast(arg.asValue(), result)));
          changed = true;
        } else if (arg.isNumber()) {
          if (isFloating(result) && !arg.isFloat()) {
            node->setArg(name, Argument::real(arg.asDouble()));
            changed = true;
          } else if (isInteger(result) && arg.isFloat() && arg.asDouble() == std::floor(arg.asDouble())) {
            node->setArg(name, Argument::integer(static_cast<int64_t>(arg.asDouble())));
            changed = true;
          }
        }
      }
    }
    return changed;
  }
};

} // namespace

void registerCastClampMixedTypeArgs(Registrar &r) {
  r.addPass(simplePass<CastClampMixedTypeArgsPass>(
      "cast-clamp-mixed-type-args", "Cast clamp's input and bounds to the clamp's result dtype"));
}

} // namespace tico::passes
