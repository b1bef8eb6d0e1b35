// Runs calibration data through a graph for one quantizer (tico/quant/quantizer.h):
// node-major over all batches, so a layer sees every batch's inputs before it runs and a
// sequential quantizer's replacement weights reach every later layer, with only live
// activations kept, and those beyond a memory budget kept on disk (docs/quantizers.md,
// "Layer-wise calibration").
#pragma once

#include "tico/eval/evaluator.h"
#include "tico/quant/calibration.h"
#include "tico/quant/quantizer.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tico::quant {

struct CalibrationRunOptions {
  // Bytes of activations held in memory between nodes (all batches together). Beyond it the
  // values read last are written to `offload_dir` and mapped back when needed. One node's
  // inputs and outputs for one batch must fit. Absent: no limit.
  std::optional<uint64_t> memory_budget;
  std::string offload_dir; // empty: the system's temporary directory
  bool progress = true;      // report progress on stderr
  bool progress_bar = false; // as one redrawn line (a terminal); else plain lines every 10 %
  std::string label;         // "quantizer 'gptq'", for messages
};

// What one run measured, for logs and the benchmark.
struct CalibrationRunStats {
  std::size_t batches = 0;
  uint64_t peak_resident_bytes = 0; // activations in memory at once (between nodes)
  uint64_t offloaded_bytes = 0;     // written to disk in total
  std::size_t offloaded_tensors = 0;
};

// Calls quantizer.observe() and quantizer.layer() as `plan` asks. Throws tico::Error naming the
// batch, the node and the value on bad data (a batch that does not match the graph's inputs,
// NaN or infinity in an observed value) and when the budget cannot hold one node.
CalibrationRunStats runCalibration(const Graph &graph, const Evaluator &evaluator, CalibrationSource &source,
                                   const CalibrationPlan &plan, Quantizer &quantizer, QuantizeContext &context,
                                   const CalibrationRunOptions &options);

} // namespace tico::quant
