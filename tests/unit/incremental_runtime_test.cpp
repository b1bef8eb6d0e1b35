// The incremental runtime layer (core/incremental-runtime, docs/incremental.md "The runtime
// layer") on the two-towers model packaged by the incremental compiler: every step bitwise equal
// to the monolith, the monolith when everything changed, a miss refreshing the cache, cache keys
// covering exactly a value's support, LRU eviction order and byte accounting, the cost model
// (MACs, then observed latency, cold penalty), the budget never exceeded, forged and stale
// decisions refused, and the hit rate of a seeded 90 / 10 trace.
#include "cost.h"
#include "incremental.h"
#include "incremental_runtime.h"

#include "incremental_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>

namespace tico::test {
namespace {

namespace rt = tico::incremental::runtime;

// The two towers packaged: strategies monolithic, changed_x (reads b), changed_y (reads a),
// all_changed; retained a (a public output) and b, 16 bytes each.
struct Packaged {
  std::shared_ptr<const CircleModel> model;
  nlohmann::json manifest;
  Packaged() {
    TwoTowers towers;
    CircleModel m = towers.b.model();
    const auto report = incremental::compileIncremental(incrementalRegistry(), m, {});
    manifest = nlohmann::json::parse(report.manifest);
    model = std::make_shared<const CircleModel>(std::move(m));
  }
};

const Packaged &packaged() {
  static const Packaged p;
  return p;
}

rt::Runtime makeRuntime(rt::Options options = {}) {
  options.observe_latency = false; // selection on MACs: the same steps every run
  return rt::Runtime(packaged().model, packaged().manifest, options);
}

// Seeded values per input: pool[input][entry].
std::vector<std::vector<TensorPtr>> valuePool(int entries) {
  std::vector<std::vector<TensorPtr>> pool(2);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < entries; ++k)
      pool[i].push_back(f32({1, 4}, randomFloats(4, static_cast<uint32_t>(100 + 10 * i + k))));
  return pool;
}

bool sameBits(const std::vector<TensorPtr> &a, const std::vector<TensorPtr> &b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i]->contiguousBytes() != b[i]->contiguousBytes())
      return false;
  return true;
}

template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

// Runs `steps` seeded steps (each changes x, y, both or neither) and checks every step against
// the monolith; returns the strategies used. `after` sees the runtime after each step.
template <typename After>
std::map<std::string, uint64_t> replayRandom(rt::Runtime &runtime, int steps, uint64_t seed, After after) {
  const auto pool = valuePool(3);
  const CircleInterpreter monolith(packaged().model);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, 2);
  int choice[2] = {0, 0};
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < 2; ++i) {
      choice[i] = pick(rng);
      runtime.setInput(static_cast<std::size_t>(i), pool[i][choice[i]]);
    }
    const auto step = runtime.run();
    const auto expected = monolith.run({pool[0][choice[0]], pool[1][choice[1]]}, 0);
    EXPECT_TRUE(sameBits(step.outputs, expected)) << "step " << s << " (" << step.strategy << ")";
    after(runtime);
  }
  return runtime.stats().strategies;
}

TEST(IncrementalRuntime, EveryStepEqualsTheMonolithBitwise) {
  auto runtime = makeRuntime();
  const auto used = replayRandom(runtime, 300, 7, [](const rt::Runtime &) {});
  for (const char *name : {"monolithic", "changed_x", "changed_y", "unchanged"})
    EXPECT_GT(used.count(name) ? used.at(name) : 0, 0u) << name;
  // The fused layout through the same layer.
  TwoTowers towers;
  CircleModel m = towers.b.model();
  incremental::CompileOptions options;
  options.fused = true;
  const auto report = incremental::compileIncremental(incrementalRegistry(), m, options);
  rt::Runtime fused(std::make_shared<const CircleModel>(std::move(m)), nlohmann::json::parse(report.manifest),
                    {.observe_latency = false, .fused = true});
  const auto pool = valuePool(2);
  const CircleInterpreter monolith(packaged().model);
  for (auto [x, y] : {std::pair{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}) {
    fused.setInput(0, pool[0][x]);
    fused.setInput(1, pool[1][y]);
    EXPECT_TRUE(sameBits(fused.run().outputs, monolith.run({pool[0][x], pool[1][y]}, 0)));
  }
  EXPECT_GT(fused.stats().hits, 0u);
}

TEST(IncrementalRuntime, AllChangedRunsTheMonolithAndAMissRefreshesTheCache) {
  auto runtime = makeRuntime();
  const auto pool = valuePool(3);
  auto step = [&](int x, int y) {
    runtime.setInput(0, pool[0][x]);
    runtime.setInput(1, pool[1][y]);
    return runtime.run();
  };
  auto first = step(0, 0);
  EXPECT_EQ(first.strategy, "monolithic");
  EXPECT_EQ(first.kind, rt::StepKind::Full);
  // x changed: changed_x reads b, which only the regions write (the monolith outputs c and a):
  // a miss, served by all_changed, which reads nothing and refreshes every retained value ...
  auto second = step(1, 0);
  EXPECT_EQ(second.strategy, "all_changed");
  EXPECT_EQ(second.kind, rt::StepKind::Miss);
  // ... so changes of y (reading a for x = 1) and of x (reading b for y = 1, written by the
  // step before) hit.
  auto third = step(1, 1);
  EXPECT_EQ(third.strategy, "changed_y");
  EXPECT_EQ(third.kind, rt::StepKind::Hit);
  auto fourth = step(2, 1);
  EXPECT_EQ(fourth.strategy, "changed_x");
  EXPECT_EQ(fourth.kind, rt::StepKind::Hit);
  // Both changed: the monolith, whatever is cached.
  EXPECT_EQ(step(0, 2).strategy, "monolithic");
  // Equal bytes in a new tensor are no change (content versions): the last outputs again.
  runtime.setInput(0, f32({1, 4}, std::vector<float>(pool[0][0]->contiguousBytes().size() / 4)));
  runtime.setInput(0, std::make_shared<TensorData>(*pool[0][0]));
  EXPECT_EQ(runtime.changed(), 0u);
  auto same = runtime.run();
  EXPECT_EQ(same.strategy, "unchanged");
  EXPECT_EQ(same.kind, rt::StepKind::Unchanged);
  const auto &stats = runtime.stats();
  EXPECT_EQ(stats.steps, 6u);
  EXPECT_EQ(stats.full, 2u);
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.unchanged, 1u);
}

TEST(IncrementalRuntime, CacheKeysCoverExactlyTheValueSupport) {
  auto runtime = makeRuntime();
  const auto pool = valuePool(2);
  runtime.setInput(0, pool[0][0]);
  runtime.setInput(1, pool[1][0]);
  const std::string a0 = runtime.cacheKey("a"), b0 = runtime.cacheKey("b");
  // The key names the model, the producer's canonical id and the output index.
  const auto &m = packaged().manifest;
  EXPECT_EQ(a0.rfind(m["model"]["model_id"].get<std::string>() + "|" + m["callables"][0]["id"].get<std::string>() +
                         "|0|0=",
                     0),
            0u)
      << a0;
  runtime.setInput(1, pool[1][1]); // y: a's key stays, b's moves
  EXPECT_EQ(runtime.cacheKey("a"), a0);
  EXPECT_NE(runtime.cacheKey("b"), b0);
  runtime.setInput(1, pool[1][0]); // back to the first y: the first key again
  EXPECT_EQ(runtime.cacheKey("b"), b0);
  runtime.setInput(0, pool[0][1], 42); // a caller's version replaces the content version ...
  const std::string a42 = runtime.cacheKey("a");
  EXPECT_NE(a42, a0);
  runtime.setInput(0, pool[0][0], 42); // ... and is trusted: other bytes, same version, same key
  EXPECT_EQ(runtime.cacheKey("a"), a42);
  EXPECT_EQ(runtime.cacheKey("b"), b0);
}

TEST(IncrementalResidency, LruEvictionOrderPinningAndAccounting) {
  rt::Residency cache(100);
  auto value = f32({1}, {1.0f});
  EXPECT_TRUE(cache.put("a", value, 40));
  EXPECT_TRUE(cache.put("b", value, 40));
  EXPECT_NE(cache.use("a"), nullptr); // a is now the most recent
  EXPECT_EQ(cache.use("missing"), nullptr);
  EXPECT_TRUE(cache.put("c", value, 40)); // evicts b, the least recently used
  EXPECT_EQ(cache.keysByRecency(), (std::vector<std::string>{"a", "c"}));
  EXPECT_FALSE(cache.put("huge", value, 101)); // larger than the budget: refused, nothing evicted
  EXPECT_FALSE(cache.put("d", value, 40, {"a", "c"})); // pinned entries leave no room
  EXPECT_EQ(cache.keysByRecency(), (std::vector<std::string>{"a", "c"}));
  EXPECT_TRUE(cache.put("e", value, 20)); // fits exactly
  EXPECT_TRUE(cache.put("f", value, 30, {"a"})); // a pinned: c goes, though a is older
  EXPECT_EQ(cache.keysByRecency(), (std::vector<std::string>{"a", "e", "f"}));
  EXPECT_TRUE(cache.put("e", value, 10)); // replacing a key re-accounts it
  const auto &s = cache.stats();
  EXPECT_EQ(s.bytes, 80u);
  EXPECT_EQ(s.entries, 3u);
  EXPECT_EQ(s.peak_bytes, 100u);
  EXPECT_EQ(s.evictions, 2u);
  EXPECT_EQ(s.evicted_bytes, 80u);
  EXPECT_EQ(s.refused, 2u);
  EXPECT_EQ(s.insertions, 6u);
}

TEST(IncrementalRuntimeCost, MacsFirstThenObservedLatencyWithAColdPenalty) {
  // Callables of 100, 300 and 600 MACs; alpha 0.5, cold penalty 0.1.
  rt::CostModel cost({100, 300, 600}, 0.5, 0.1, /*observe=*/true);
  EXPECT_DOUBLE_EQ(cost.predict({0, 1}), 440.0); // MACs, every callable cold
  cost.record(2, 0.006);                         // 1e-5 s per MAC observed
  EXPECT_TRUE(cost.warm(2));
  EXPECT_DOUBLE_EQ(cost.predict({2}), 0.006);
  EXPECT_DOUBLE_EQ(cost.predict({0}), 100 * 1e-5 * 1.1); // priced at the observed rate, cold
  cost.record(2, 0.002);                                 // EWMA: 0.5 * 0.002 + 0.5 * 0.006
  EXPECT_DOUBLE_EQ(cost.observed(2), 0.004);
  EXPECT_EQ(cost.runs(2), 2u);
  // Without observation the prediction stays in MACs (deterministic selection).
  rt::CostModel macs({100, 300}, 0.5, 0.1, /*observe=*/false);
  macs.record(0, 1.0);
  EXPECT_DOUBLE_EQ(macs.predict({0, 1}), 100 + 330.0); // warm: no penalty
}

TEST(IncrementalRuntime, RetainedBytesNeverExceedTheBudget) {
  // One 16-byte value fits: a and b evict each other, every step stays exact.
  auto runtime = makeRuntime({.budget = 16});
  uint64_t peak = 0;
  replayRandom(runtime, 300, 11, [&](const rt::Runtime &r) {
    EXPECT_LE(r.stats().residency.bytes, 16u);
    peak = std::max(peak, r.stats().residency.bytes);
  });
  EXPECT_EQ(runtime.stats().residency.peak_bytes, 16u);
  EXPECT_EQ(peak, 16u);
  EXPECT_GT(runtime.stats().residency.evictions, 0u);
  // A budget below every value: nothing is retained, every partial change misses and runs the
  // monolith (no refresh could make a strategy servable).
  auto none = makeRuntime({.budget = 8});
  const auto used = replayRandom(none, 50, 12, [](const rt::Runtime &r) { EXPECT_EQ(r.stats().residency.bytes, 0u); });
  EXPECT_EQ(used.count("changed_x") + used.count("changed_y") + used.count("all_changed"), 0u);
  EXPECT_EQ(none.stats().hits, 0u);
}

TEST(IncrementalRuntime, ForgedDecisionsFail) {
  auto runtime = makeRuntime();
  const auto pool = valuePool(2);
  runtime.setInput(0, pool[0][0]);
  runtime.setInput(1, pool[1][0]);
  runtime.run();
  runtime.setInput(1, pool[1][1]);
  const rt::Decision good = runtime.decide();
  EXPECT_EQ(good.strategy, "changed_y");

  rt::Decision unknown = good;
  unknown.strategy = "changed_z";
  EXPECT_NE(errorOf([&] { runtime.run(unknown); }).find("forged decision: 'changed_z' is no strategy of the manifest"),
            std::string::npos);
  rt::Decision edited = good;
  edited.strategy = "changed_x"; // a real strategy, but not what was decided
  EXPECT_EQ(errorOf([&] { runtime.run(edited); }),
            "forged decision: strategy 'changed_x' was not decided by this runtime or was edited");
  rt::Decision other_model = good;
  other_model.model_id = "fnv1a64:0000000000000000";
  EXPECT_NE(errorOf([&] { runtime.run(other_model); }).find("forged decision: made for model fnv1a64:0000"),
            std::string::npos);
  // A decision of another runtime on the same file, same inputs.
  auto other = makeRuntime();
  other.setInput(0, pool[0][0]);
  other.setInput(1, pool[1][0]);
  other.run();
  other.setInput(1, pool[1][1]);
  EXPECT_NE(errorOf([&] { runtime.run(other.decide()); }).find("forged decision"), std::string::npos);
  EXPECT_EQ(runtime.stats().steps, 1u); // nothing ran
  EXPECT_EQ(runtime.run(good).strategy, "changed_y");
}

TEST(IncrementalRuntime, StaleDecisionsFail) {
  auto runtime = makeRuntime({.budget = 16});
  const auto pool = valuePool(3);
  runtime.setInput(0, pool[0][0]);
  runtime.setInput(1, pool[1][0]);
  const rt::Decision first = runtime.decide();
  runtime.setInput(1, pool[1][1]); // inputs move after the decision
  EXPECT_NE(errorOf([&] { runtime.run(first); }).find("stale decision: the inputs changed since strategy 'monolithic'"),
            std::string::npos);
  const rt::Decision now = runtime.decide();
  EXPECT_EQ(runtime.run(now).strategy, "monolithic");
  EXPECT_NE(errorOf([&] { runtime.run(now); }).find("stale decision"), std::string::npos); // used up
  // A forced strategy whose retained input is not cached (the monolith does not write b).
  runtime.setInput(0, pool[0][1]);
  EXPECT_EQ(errorOf([&] { runtime.run(runtime.force("changed_x")); }),
            "stale decision: strategy 'changed_x' reads retained value 'b', which is not cached for the current "
            "input versions (evicted or never computed)");
  // A forced strategy that is servable runs even when every group changed. With room for one
  // value it keeps a (written first, then pinned for the step) and b is refused ...
  runtime.setInput(1, pool[1][2]);
  EXPECT_EQ(runtime.run(runtime.force("all_changed")).strategy, "all_changed");
  EXPECT_EQ(runtime.stats().residency.refused, 1u);
  // ... so a decision for changed_x, which reads b, is stale until b is cached again.
  runtime.setInput(0, pool[0][2]);
  EXPECT_NE(errorOf([&] { runtime.run(runtime.force("changed_x")); }).find("reads retained value 'b'"),
            std::string::npos);
  EXPECT_EQ(runtime.run(runtime.force("monolithic")).strategy, "monolithic");
}

TEST(IncrementalRuntime, SeededNinetyTenTraceHitRate) {
  // 90 % of the steps change y, 10 % x, over 8 values each; room for all 16 retained values.
  auto replay = [] {
    auto runtime = makeRuntime({.budget = 16 * 16});
    const auto pool = valuePool(8);
    std::mt19937_64 rng(2026);
    std::bernoulli_distribution x_changes(0.1);
    std::uniform_int_distribution<int> entry(0, 7);
    int choice[2] = {0, 0};
    runtime.setInput(0, pool[0][0]);
    runtime.setInput(1, pool[1][0]);
    runtime.run();
    for (int s = 1; s < 1000; ++s) {
      const int i = x_changes(rng) ? 0 : 1;
      int next = entry(rng);
      while (next == choice[i])
        next = entry(rng);
      choice[i] = next;
      runtime.setInput(static_cast<std::size_t>(i), pool[i][next]);
      runtime.run();
    }
    EXPECT_LE(runtime.stats().residency.peak_bytes, 256u);
    return runtime.stats();
  };
  const rt::Stats stats = replay();
  EXPECT_EQ(stats.steps, 1000u);
  EXPECT_EQ(stats.hits + stats.misses, 999u);
  EXPECT_GE(stats.hitRate(), 0.9);
  const rt::Stats again = replay(); // deterministic: the same trace gives the same statistics
  EXPECT_EQ(again.hits, stats.hits);
  EXPECT_EQ(again.strategies, stats.strategies);
}

TEST(IncrementalRuntime, ManifestThatDoesNotFitTheModelIsRefused) {
  auto manifest = packaged().manifest;
  manifest["strategies"][1]["steps"][0] = "region_nowhere";
  EXPECT_EQ(errorOf([&] { rt::Runtime(packaged().model, manifest); }),
            "incremental manifest: strategy 'changed_x' names the unknown callable 'region_nowhere'");
  manifest = packaged().manifest;
  manifest["format"] = "something.else";
  EXPECT_NE(errorOf([&] { rt::Runtime(packaged().model, manifest); }).find("format is not incremental.manifest.v1"),
            std::string::npos);
  auto runtime = makeRuntime();
  EXPECT_EQ(errorOf([&] { runtime.run(); }), "incremental runtime: input 'x' was never set");
}

} // namespace
} // namespace tico::test
