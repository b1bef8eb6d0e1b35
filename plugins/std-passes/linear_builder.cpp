#include "linear_builder.h"

#include "constant_views.h"

namespace tico::passes {

Value *transposedConstant(Graph &graph, const Value *weight) {
  return graph.addConstant(weight->name() + "_t", permuteView(*weight->constant(), {1, 0}));
}

Value *insertLinear(Graph &graph, Node *before, Value *input, Value *weight, Value *bias, const Shape &shape,
                    DType dtype) {
  Node *linear = graph.createNode(OpKey("aten", "linear"),
                                  {Argument::value(input), Argument::value(weight),
                                   bias ? Argument::value(bias) : Argument::none()},
                                  dtype, shape, before, "linear");
  return linear->output();
}

Value *insertPermute(Graph &graph, Node *before, Value *input, const std::vector<int64_t> &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(input->shape().at(static_cast<std::size_t>(p)));
  Node *permute = graph.createNode(OpKey("aten", "permute"), {Argument::value(input), Argument::ints(perm)},
                                   input->dtype(), shape, before, "permute");
  return permute->output();
}

} // namespace tico::passes
