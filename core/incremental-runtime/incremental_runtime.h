// The runtime layer of incremental strategies (docs/incremental.md, "The runtime layer"): runs a
// Circle file packaged by the pass `incremental-strategies` on the built-in interpreter, using
// its manifest to recompute only what depends on the inputs that changed.
//
//   Runtime rt(model, manifest, {.budget = 64 << 20});
//   rt.setInput(0, image);            // versioned by content (or setInput(i, value, version))
//   rt.setInput(1, ids); rt.setInput(2, mask);
//   auto step = rt.run();             // step.outputs equal subgraph 0's bit for bit
//
// Versions of the inputs give the changed mask; retained values are cached under keys made of
// the producing callable's identity and the versions of exactly the groups the value depends
// on, within a byte budget (LRU). Each run picks the cheapest servable strategy: the monolith
// when every group changed, the refresh chain (or the monolith) when no cached value helps. A
// decision can be made first (decide, force) and run later: it is revalidated, and a forged or
// stale one is refused.
#pragma once

#include "residency.h"

#include "tico/circle/model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tico::incremental::runtime {

using Mask = uint32_t; // bit g = input group g of the manifest

struct Options {
  std::optional<uint64_t> budget;  // bytes all retained values may take; none = unlimited
  bool observe_latency = true;     // false: select on MAC estimates only (deterministic)
  double ewma_alpha = 0.25;        // weight of the newest latency observation
  double cold_penalty = 0.1;       // extra cost of a callable that has not run yet
  bool fused = false;              // run a strategy's fused callable (layout A) when it has one
};

// A selection made for the current input versions; run(decision) executes it after checking it
// still holds. Built by decide() or force(); any edit makes it forged.
struct Decision {
  std::string model_id;
  std::string strategy;            // a manifest strategy, or "unchanged" (nothing to run)
  Mask changed = 0;
  std::vector<uint64_t> versions;  // per group
  uint64_t token = 0;
};

// How a step was served. `hit`: a strategy reading cached values could serve the change;
// `miss`: some groups changed, not all, and none could; `full`: every group changed;
// `unchanged`: no group changed, the previous outputs are returned.
enum class StepKind { Unchanged, Full, Hit, Miss };
const char *stepKindName(StepKind kind);

struct StepResult {
  std::vector<std::shared_ptr<const TensorData>> outputs; // public outputs, in order
  std::string strategy;
  StepKind kind = StepKind::Full;
  Mask changed = 0;
  double seconds = 0;           // the whole step, including input versioning since the last one
  double execute_seconds = 0;   // inside the interpreter
  double overhead_seconds = 0;  // seconds - execute_seconds: the layer's own time
};

struct Stats {
  uint64_t steps = 0, unchanged = 0, full = 0, hits = 0, misses = 0;
  std::map<std::string, uint64_t> strategies; // steps per strategy ("unchanged" included)
  ResidencyStats residency;
  // hits / (hits + misses): the steps a partial change could be served from the cache.
  double hitRate() const { return hits + misses ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0.0; }
};

class Runtime {
public:
  // `manifest` is the model's Metadata("incremental.manifest.v1") parsed; it is checked against
  // the model (tico::Error naming the problem).
  Runtime(std::shared_ptr<const CircleModel> model, const nlohmann::json &manifest, Options options = {});
  ~Runtime();
  Runtime(Runtime &&) noexcept;
  Runtime &operator=(Runtime &&) noexcept;

  const std::vector<std::string> &groups() const;
  const std::vector<std::string> &inputNames() const;  // subgraph 0's order
  std::vector<std::string> strategyNames() const;      // the monolith first
  // Bit of the group holding public input `index`.
  Mask groupOfInput(std::size_t index) const;

  // Sets a public input. Without a version the layer versions it by content (a hash of dtype,
  // shape and bytes), so setting equal bytes again is no change; with one, the caller's
  // version is trusted (equal version = unchanged value).
  void setInput(std::size_t index, std::shared_ptr<const TensorData> value);
  void setInput(std::size_t index, std::shared_ptr<const TensorData> value, uint64_t version);

  // Groups whose version differs from the last run (all of them before the first run).
  Mask changed() const;
  // The selection for the current inputs.
  Decision decide() const;
  // A decision naming `strategy` for the current inputs (the monolith rule does not apply: a
  // forced strategy is for validation and experiments); run() still checks it is servable.
  Decision force(const std::string &strategy) const;

  StepResult run();
  // Throws tico::Error "forged decision: ..." (not made by this runtime for this model, edited,
  // or naming no strategy) or "stale decision: ..." (the inputs changed since, or a retained
  // value it reads is no longer cached for the current versions).
  StepResult run(const Decision &decision);

  const Stats &stats() const;
  // The cache key of a retained value for the current input versions.
  std::string cacheKey(const std::string &retained) const;
  // Predicted cost of a strategy now (MACs before observations, seconds after).
  double predictedCost(const std::string &strategy) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tico::incremental::runtime
