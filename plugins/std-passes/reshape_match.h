// Matching helpers shared by the reshape clean-up passes.
#pragma once

#include "pass_support.h"

namespace tico::passes {

// Every op that only re-interprets the element order (the reshape family).
inline const std::string_view kReshapeOps[] = {
    "aten::reshape.default", "aten::view.default", "aten::_unsafe_view.default", "aten::view_copy.default"};

inline bool isReshape(const Node &node) { return isOp(node, kReshapeOps) && isTensorValue(node.arg(0)); }

// The shape without its leading size-1 dims.
inline Shape withoutLeadingOnes(const Shape &shape) {
  std::size_t i = 0;
  while (i < shape.size() && shape[i].isStatic() && shape[i].value() == 1)
    ++i;
  return Shape(shape.begin() + static_cast<std::ptrdiff_t>(i), shape.end());
}

// A reshape that only adds or removes leading size-1 dims: broadcasting (which aligns
// trailing dims) and last-dim ops see the same elements before and after it.
inline bool onlyLeadingOnesChange(const Shape &from, const Shape &to) {
  return withoutLeadingOnes(from) == withoutLeadingOnes(to);
}

// [1] + shape
inline Shape prependOne(const Shape &shape) {
  Shape out{Dim(1)};
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

// x when `v` is reshape(x, [1] + x.shape) of a rank-3 x and nothing else reads `v`; else null.
inline Value *rank3BehindLeadingOne(const Graph &graph, Value *v) {
  Node *reshape = v->producer();
  if (reshape == nullptr || !isReshape(*reshape) || !hasSingleUse(graph, v))
    return nullptr;
  Value *x = reshape->input(0);
  return x->rank() == 3 && prependOne(x->shape()) == v->shape() ? x : nullptr;
}

} // namespace tico::passes
