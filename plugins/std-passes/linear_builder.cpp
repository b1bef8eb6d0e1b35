#include "linear_builder.h"

#include "constant_views.h"

namespace tico::passes {

// The nodes are named "linear" and "permute" (made unique by the graph), not after the product
// they replace: names reach the Circle file, whose bytes must not change.

Value *transposedConstant(Graph &graph, const Value *weight) {
  return graph.addConstant(weight->name() + "_t", permuteView(*weight->constant(), {1, 0}));
}

Value *insertLinear(rewrite::Rewriter &rewriter, Node *before, Value *input, Value *weight, Value *bias,
                    const Shape &shape, DType dtype) {
  rewrite::Builder b = rewriter.builder(before, "");
  return b.value(OpKey("aten", "linear"),
                 {Argument::value(input), Argument::value(weight), bias ? Argument::value(bias) : Argument::none()},
                 dtype, shape, "linear");
}

Value *insertPermute(rewrite::Rewriter &rewriter, Node *before, Value *input, const std::vector<int64_t> &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(input->shape().at(static_cast<std::size_t>(p)));
  rewrite::Builder b = rewriter.builder(before, "");
  return b.value(OpKey("aten", "permute"), {Argument::value(input), Argument::ints(perm)}, input->dtype(), shape,
                 "permute");
}

} // namespace tico::passes
