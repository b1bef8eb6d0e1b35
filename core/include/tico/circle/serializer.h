// Graph -> CircleModel, through the registered lowerings.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/graph.h"
#include "tico/pass/options.h"
#include "tico/support/error.h"

#include <map>
#include <string>
#include <vector>

namespace tico {

class Registry;

// Options of the lowering step: a manifest's lower stage (`kind: lower`) sets them.
struct LowerOptions {
  // Drop user inputs that torch.export specialised to constants from the Circle inputs
  // (config alias: remove_constant_input).
  bool remove_constant_input = false;

  // What a lower stage accepts, with defaults and help (validated like pass options).
  static const std::vector<OptionSpec> &specs();
  // From options resolved against specs().
  static LowerOptions from(const Options &options);
};

// One op the serializer could not lower, with how often it occurs and why.
struct UnsupportedOp {
  OpKey op;
  std::size_t count = 0;
  std::vector<std::string> node_names; // first few, for the report
  std::string reason;                  // "no lowering registered" or the lowering's reason
};

// Thrown with the complete list, so a user sees every missing op in one run.
class UnsupportedOpsError : public Error {
public:
  explicit UnsupportedOpsError(std::vector<UnsupportedOp> ops);
  const std::vector<UnsupportedOp> &ops() const { return ops_; }

private:
  std::vector<UnsupportedOp> ops_;
};

// Every op of `graph` that has no usable lowering (empty when all are covered).
std::vector<UnsupportedOp> findUnsupportedOps(const Graph &graph, const Registry &registry);

// Builds a one-subgraph Circle model: user inputs in signature order (constant inputs
// dropped when options.remove_constant_input), non-None user outputs, one lowering call per
// node. Throws UnsupportedOpsError before emitting anything when ops are missing.
CircleModel serializeGraph(const Graph &graph, const Registry &registry, const LowerOptions &options = {});

} // namespace tico
