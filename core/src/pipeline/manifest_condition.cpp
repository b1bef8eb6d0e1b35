// Stage conditions: whether a stage applies to the graph at hand.
#include "tico/ir/graph.h"
#include "tico/pipeline/manifest.h"

namespace tico {

namespace {

// Quantize/dequantize and fake-quant ops in every namespace PyTorch uses for them
// (quantized_decomposed::*, aten::fake_quantize_per_tensor_affine, aten::quantize_per_tensor).
bool isQuantOp(const OpKey &op) {
  return op.ns == "quantized_decomposed" || op.name.find("quantize") != std::string::npos ||
         op.name.find("fake_quant") != std::string::npos;
}

} // namespace

bool StageCondition::holds(const Graph &graph) const {
  switch (kind) {
  case Kind::Always:
    return true;
  case Kind::HasQuantOps:
    for (const auto &node : graph.nodes())
      if (isQuantOp(node->op()))
        return true;
    return false;
  case Kind::HasOp: {
    OpKey wanted = OpKey::parseOrThrow(op);
    for (const auto &node : graph.nodes())
      if (node->op() == wanted)
        return true;
    return false;
  }
  }
  return true;
}

std::string StageCondition::str() const {
  switch (kind) {
  case Kind::Always:
    return "always";
  case Kind::HasQuantOps:
    return "has-quant-ops";
  case Kind::HasOp:
    return "has-op(" + op + ")";
  }
  return "always";
}

} // namespace tico
