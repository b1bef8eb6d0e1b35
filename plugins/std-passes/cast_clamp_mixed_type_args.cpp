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

// The position of the argument `name` (which node.arg(name) has just found).
std::size_t argIndex(const Node &node, std::string_view name) {
  std::size_t i = 0;
  while (node.args()[i].name != name)
    ++i;
  return i;
}

bool castClampArgs(Node &node, rewrite::Rewriter &rewriter) {
  if (!isTensorValue(node.arg(0)))
    return false;
  const DType result = node.output()->dtype();
  bool changed = false;
  for (const char *name : {"self", "min", "max"}) {
    const Argument arg = node.arg(name);
    const std::size_t index = argIndex(node, name);
    if (isTensorValue(arg)) {
      if (arg.asValue()->dtype() == result)
        continue;
      Builder b = rewriter.builderFor(node);
      rewriter.setArg(&node, index, A(b.cast(arg.asValue(), result)));
      changed = true;
    } else if (arg.isNumber()) {
      if (isFloating(result) && !arg.isFloat()) {
        rewriter.setArg(&node, index, Argument::real(arg.asDouble()));
        changed = true;
      } else if (isInteger(result) && arg.isFloat() && arg.asDouble() == std::floor(arg.asDouble())) {
        rewriter.setArg(&node, index, Argument::integer(static_cast<int64_t>(arg.asDouble())));
        changed = true;
      }
    }
  }
  return changed;
}

} // namespace

void registerCastClampMixedTypeArgs(Registrar &r) {
  r.addPass(sweepPass("cast-clamp-mixed-type-args", "Cast clamp's input and bounds to the clamp's result dtype",
                      {"aten::clamp.default", "aten::clamp.Tensor"}, castClampArgs));
}

} // namespace tico::passes
