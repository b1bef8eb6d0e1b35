// Building blocks for the passes that rewrite matrix products into aten::linear.
#pragma once

#include "tico/ir/graph.h"
#include "tico/rewrite/pattern.h"

#include <vector>

namespace tico::passes {

// A new constant: `weight` (a 2-D constant [K, N]) seen transposed as [N, K], zero copy.
Value *transposedConstant(Graph &graph, const Value *weight);
// aten::linear(input, weight, bias) inserted before `before` through `rewriter`; `bias` may be
// null.
Value *insertLinear(rewrite::Rewriter &rewriter, Node *before, Value *input, Value *weight, Value *bias,
                    const Shape &shape, DType dtype);
// aten::permute(input, perm) inserted before `before` through `rewriter`.
Value *insertPermute(rewrite::Rewriter &rewriter, Node *before, Value *input, const std::vector<int64_t> &perm);

} // namespace tico::passes
