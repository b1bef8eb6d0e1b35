// lower-pow2-to-mul (LowerPow2ToMul): pow(x, 2) is mul(x, x) (PyTorch computes it that way),
// one MUL instead of POW. Only when the power keeps x's dtype (pow(int_x, 2.0) is float).
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {

void registerLowerPow2ToMul(Registrar &r) {
  r.addPass(sweepPass("lower-pow2-to-mul", "Rewrite pow(x, 2) as mul(x, x)", {"aten::pow.Tensor_Scalar"},
                      [](Node &node, rewrite::Rewriter &rewriter) {
                        if (!isTensorValue(node.arg(0)))
                          return false;
                        auto exponent = numberOf(node.arg(1));
                        Value *x = node.input(0);
                        if (!exponent || *exponent != 2.0 || node.output()->dtype() != x->dtype())
                          return false;
                        Builder b = rewriter.builderFor(node);
                        rewriter.replaceNode(&node, b.mul(A(x), A(x)));
                        return true;
                      }));
}

} // namespace tico::passes
