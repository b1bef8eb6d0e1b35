// decompose-addmm (DecomposeAddmm): beta*input + alpha*(mat1 @ mat2) becomes mm, the scaling
// muls that are not by 1, and add. restore-linear runs earlier in the bundle and takes the
// addmm that are really a linear, so what reaches this rule is a general product plus bias.
#include "decomposition.h"

namespace tico::decompose {

using passes::A;

std::vector<Rule> addmmRules() {
  return {{"aten::addmm.default", [](Builder &b, Node &n) -> Replacement {
             const double beta = numberArg(n, "beta", 1.0);
             const double alpha = numberArg(n, "alpha", 1.0);
             Value *product = b.make("aten::mm.default", {A(n.input("mat1")), A(n.input("mat2"))});
             if (alpha != 1.0)
               product = b.mul(A(product), A(alpha));
             if (beta == 0.0) // PyTorch ignores the input (even NaN/inf in it) when beta is 0
               return std::vector<Value *>{product};
             Value *bias = n.input("self");
             if (beta != 1.0)
               bias = b.mul(A(bias), A(beta));
             return std::vector<Value *>{b.add(A(product), A(bias))};
           }}};
}

} // namespace tico::decompose
