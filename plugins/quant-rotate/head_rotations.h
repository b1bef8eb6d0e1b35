// Where a per-head rotation (SpinQuant's R2) can be fused into weights: a linear P whose output
// reaches only linears C (through operators that never mix values inside one head) can have its
// output rows rotated in blocks, W_P' = R^T W_P per block, if every C undoes it on its input
// columns, W_C' = W_C R per block. The blocks are the smallest last dimension on the way (the head
// size once the projection is split into heads). In attention that is value -> output projection:
//   v = linear(x, Wv) -> reshape [.., heads, d] -> transpose -> (index_copy into the KV cache)
//     -> (reshape / expand for grouped heads) -> matmul(probabilities, v) -> transpose -> reshape
//     -> linear(., Wo)
// A cache the values are written into joins the path: its graph input and the updated cache output
// then hold rotated values (both signatures of an exported LLM are rotated alike, so a cache one
// writes the other reads consistently). The query and key paths never qualify (RoPE, norms and
// q k^T mix a head's values), nor do MLPs (activations are elementwise non-linear).
#pragma once

#include <tico/ir/graph.h>

#include <string>
#include <vector>

namespace tico::rotate {

struct HeadRotationGroup {
  const Node *producer = nullptr;           // linear: output rows rotated
  std::vector<const Node *> consumers;      // linears: input columns counter-rotated
  std::vector<const Value *> state_inputs;  // graph inputs (caches) that will hold rotated values
  int64_t block = 0;                        // rotation size (the head size)
};

// Every group of `graph`; `skipped` gets one line per linear whose output stays unrotated because
// of something other than an immediate non-linear reader (reported at -v, never an error).
std::vector<HeadRotationGroup> findHeadRotations(const Graph &graph, std::vector<std::string> &skipped);

} // namespace tico::rotate
