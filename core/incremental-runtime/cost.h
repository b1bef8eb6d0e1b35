// Predicted cost of the runtime layer's callables (docs/incremental.md, "Selection"): the
// manifest's MAC estimates until latencies are observed, then an exponentially weighted moving
// average of each callable's observed latency; callables not observed yet are priced from their
// MACs at the observed seconds per MAC. A callable that has never run (cold) costs
// `cold_penalty` more, so that between near-equal strategies the one already warmed wins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tico::incremental::runtime {

class CostModel {
public:
  // `observe` false: predictions stay MAC based (deterministic selection, for tests and traces
  // that must replay the same way).
  CostModel(std::vector<uint64_t> est_macs, double alpha, double cold_penalty, bool observe);

  void record(std::size_t callable, double seconds);
  bool warm(std::size_t callable) const { return runs_[callable] > 0; }
  uint64_t runs(std::size_t callable) const { return runs_[callable]; }
  // Mean observed latency (EWMA) in seconds, 0 before the first run.
  double observed(std::size_t callable) const { return ewma_[callable]; }
  // Seconds once anything has been observed (with `observe`), MACs before.
  double predict(const std::vector<std::size_t> &callables) const;

private:
  std::vector<uint64_t> macs_;
  std::vector<double> ewma_;
  std::vector<uint64_t> runs_;
  double alpha_, cold_penalty_;
  bool observe_;
};

} // namespace tico::incremental::runtime
