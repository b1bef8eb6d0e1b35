// lower-pow2-to-mul (LowerPow2ToMul): pow(x, 2) is mul(x, x) (PyTorch computes it that way),
// one MUL instead of POW. Only when the power keeps x's dtype (pow(int_x, 2.0) is float).
#include "builder.h"
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

class LowerPow2ToMulPass final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::pow.Tensor_Scalar"}) || !isTensorValue(node->arg(0)))
        continue;
      auto exponent = numberOf(node->arg(1));
      Value *x = node->input(0);
      if (!exponent || *exponent != 2.0 || node->output()->dtype() != x->dtype())
        continue;
      Builder b(graph, node, node->name());
      replaceAndErase(graph, node, b.mul(A(x), A(x)));
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerLowerPow2ToMul(Registrar &r) {
  r.addPass(simplePass<LowerPow2ToMulPass>("lower-pow2-to-mul", "Rewrite pow(x, 2) as mul(x, x)"));
}

} // namespace tico::passes
