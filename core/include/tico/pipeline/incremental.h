// Incremental strategies added to a conversion (docs/incremental.md): what tico-run --incremental
// and the Python package's convert(..., incremental=...) share. The Circle pass
// incremental-strategies (plugin incremental) runs on the lowered model with the request's
// options and the program's state writes, which the stages saw before state-writes dropped them.
#pragma once

#include "tico/circle/model.h"
#include "tico/pipeline/driver.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/registry.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tico {

struct IncrementalRequest {
  std::vector<std::string> groups; // inputs that change together: "input_ids+attention_mask"
  int64_t max_strategies = 8;
  int64_t budget = -1; // bytes all retained tensors may take; -1 unlimited
  std::vector<std::string> state_writes;
  std::string example_inputs; // a .pt2 whose example inputs also validate (the one converted)
  bool fused = false;         // also one subgraph per strategy (layout A)
};

// Makes the program's state writes observable: a stage that runs once and has the pass
// state-writes (which drops them) after other passes is split in front of it, so the graph
// after the first part still lists the writes as mutation outputs. Running a once-stage's
// passes as two consecutive once-stages runs the same passes in the same order.
void exposeStateWrites(Manifest &manifest);

// Adds the targets of `graph`'s mutation outputs (buffers and inputs the program writes) to
// `writes`. The driver calls it after the frontend and after each ATen-level stage
// (ConversionResult::state_writes).
void noteStateWrites(const Graph &graph, std::set<std::string> &writes);

// True when a Circle stage of `manifest` runs incremental-strategies.
bool runsIncrementalStrategies(const Manifest &manifest);

// Adds `writes` to the state_writes option of every incremental-strategies invocation of
// `stage` (a pass run from a pipeline stage sees only the Circle model, which has no state).
void passStateWrites(Stage &stage, const std::set<std::string> &writes);

// Runs incremental-strategies on `model` (an error naming the plugin when it is not loaded, or
// the pass's error), then `verify` on the result.
void addIncrementalStrategies(const Registry &registry, CircleModel &model, const IncrementalRequest &request,
                              const std::function<void(const CircleModel &)> &verify);

// The manifest text stored in Metadata("incremental.manifest.v1"), if any.
std::optional<std::string> incrementalManifest(const CircleModel &model);

} // namespace tico
