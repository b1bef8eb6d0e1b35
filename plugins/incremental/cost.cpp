// The MAC cost model. Exact multiply-accumulate counts for the operators that dominate real
// models (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, BATCH_MATMUL): output
// elements times the reduction length. Every other operator costs its output element count
// (one "MAC" per element for elementwise arithmetic, data movement, reductions' outputs), a
// rough but monotone stand-in that keeps cheap operators from looking free. Planning only
// compares these numbers; they are estimates, not latencies (docs/incremental.md).
#include "incremental.h"

#include "tico/circle/query.h"

namespace tico::incremental {
namespace {

uint64_t elements(const CircleTensor &t) {
  uint64_t n = 1;
  for (int32_t d : t.shape)
    n *= static_cast<uint64_t>(d > 0 ? d : (d == 0 ? 0 : 1));
  return n;
}

const CircleTensor *tensorAt(const CircleSubGraph &g, const std::vector<int32_t> &list, std::size_t slot) {
  if (slot >= list.size() || list[slot] < 0 || static_cast<std::size_t>(list[slot]) >= g.tensors.size())
    return nullptr;
  return &g.tensors[list[slot]];
}

uint64_t dim(const CircleTensor *t, int index) {
  if (!t)
    return 1;
  const int rank = static_cast<int>(t->shape.size());
  if (index < 0)
    index += rank;
  if (index < 0 || index >= rank || t->shape[index] <= 0)
    return 1;
  return static_cast<uint64_t>(t->shape[index]);
}

} // namespace

uint64_t tensorBytes(const CircleTensor &tensor) { return elements(tensor) * circleElementSize(tensor.type); }

uint64_t operatorMacs(const CircleModel &model, const CircleOperator &op) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  const CircleTensor *out = tensorAt(g, op.outputs, 0);
  const uint64_t out_elements = out ? elements(*out) : 0;
  switch (builtinOf(model, op)) {
  case circle::BuiltinOperator::FULLY_CONNECTED: // weights [out, in]
    return out_elements * dim(tensorAt(g, op.inputs, 1), 1);
  case circle::BuiltinOperator::CONV_2D: // filter [O, KH, KW, I]
    return out_elements * dim(tensorAt(g, op.inputs, 1), 1) * dim(tensorAt(g, op.inputs, 1), 2) *
           dim(tensorAt(g, op.inputs, 1), 3);
  case circle::BuiltinOperator::DEPTHWISE_CONV_2D: // filter [1, KH, KW, O]
    return out_elements * dim(tensorAt(g, op.inputs, 1), 1) * dim(tensorAt(g, op.inputs, 1), 2);
  case circle::BuiltinOperator::TRANSPOSE_CONV: { // inputs: output shape, filter [O, KH, KW, I], input
    const CircleTensor *input = tensorAt(g, op.inputs, 2);
    const CircleTensor *filter = tensorAt(g, op.inputs, 1);
    return (input ? elements(*input) : 0) * dim(filter, 0) * dim(filter, 1) * dim(filter, 2);
  }
  case circle::BuiltinOperator::BATCH_MATMUL: {
    const CircleTensor *lhs = tensorAt(g, op.inputs, 0);
    bool adj_x = false;
    if (const auto *o = op.builtin_options.AsBatchMatMulOptions())
      adj_x = o->adjoint_lhs;
    return out_elements * dim(lhs, adj_x ? -2 : -1);
  }
  default:
    return out_elements;
  }
}

uint64_t totalMacs(const CircleModel &model, const std::vector<uint8_t> &selected) {
  const auto &ops = model.subgraphs.at(0).operators;
  uint64_t sum = 0;
  for (std::size_t o = 0; o < ops.size(); ++o)
    if (selected.empty() || selected[o])
      sum += operatorMacs(model, ops[o]);
  return sum;
}

} // namespace tico::incremental
