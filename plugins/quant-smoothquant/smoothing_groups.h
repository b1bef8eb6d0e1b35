// Where SmoothQuant can move scales: a value X whose readers are all linear layers with constant
// float weights (q/k/v of one norm, gate/up of another) and whose producer can absorb a division
// of X's channels without an extra operator:
//   aten::mul.Tensor(y, c)         c a float constant along X's last dimension ([C], [1, C], ...):
//                                  an RMSNorm's scale (Gemma's 1 + w folded to a constant)
//   aten::layer_norm(y, C, w, b)   both w and b divided
//   circle::rms_norm(y, gamma)     gamma divided
// X = P / s, W' = W diag(s) for every reader: the product is unchanged.
#pragma once

#include <tico/ir/graph.h>

#include <string>
#include <vector>

namespace tico::smoothquant {

struct SmoothingGroup {
  const Value *activation = nullptr;   // X
  const Node *producer = nullptr;      // absorbs 1 / s
  std::vector<std::string> scale_args; // the producer's arguments to divide (constants)
  std::vector<const Node *> linears;   // read X as input 0; W [out, C]
  int64_t channels = 0;                // C
};

// Every group of `graph` in graph order; `skipped` gets one line per linear layer that reads a
// float activation but cannot be smoothed, with the reason (reported, not an error).
std::vector<SmoothingGroup> findSmoothingGroups(const Graph &graph, std::vector<std::string> &skipped);

} // namespace tico::smoothquant
