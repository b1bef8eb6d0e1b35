// Incremental strategies (plugins/incremental, docs/incremental.md) on small hand-built Circle
// models: input groups, support sets, regions, frontiers, the MAC cost model, legality,
// planning (max_strategies, budget), dominance with the callable-subset rule, canonical
// identity, and the whole compiler through the plugin registry (packaged file verifies, every
// strategy's callables equal the monolith bit for bit, deterministic bytes).
#include "incremental.h"

#include "incremental_test_support.h"

#include "tico/circle/circle_pass.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/plugin/loader.h"
#include "tico/plugin/registry.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>

namespace tico::test {
namespace {

using namespace tico::incremental;

TEST(IncrementalGroups, OneGroupPerInputByDefault) {
  TwoTowers m;
  auto g = makeGroups(m.b.model(), {});
  EXPECT_EQ(g.names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(g.group_of_input, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(g.all(), 3u);
}

TEST(IncrementalGroups, GroupedInputsAndErrors) {
  TwoTowers m;
  auto g = makeGroups(m.b.model(), {"x+y"});
  EXPECT_EQ(g.names, (std::vector<std::string>{"x+y"}));
  EXPECT_EQ(g.group_of_input, (std::vector<uint32_t>{0, 0}));
  try {
    makeGroups(m.b.model(), {"x+z"});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("names 'z', which is not a public input (inputs: x, y)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(makeGroups(m.b.model(), {"x", "x+y"}), Error);
}

TEST(IncrementalSupport, BitsetsRegionsConstantOnlyAndFrontiers) {
  TwoTowers m;
  const CircleModel &model = m.b.model();
  auto groups = makeGroups(model, {});
  auto s = analyzeSupport(model, groups);
  EXPECT_EQ(s.tensor_support[m.a], 1u);
  EXPECT_EQ(s.tensor_support[m.b_out], 2u);
  EXPECT_EQ(s.tensor_support[m.k_exp], 0u);
  EXPECT_EQ(s.tensor_support[m.c], 3u);
  EXPECT_EQ(s.op_support, (std::vector<GroupSet>{1, 2, 0, 3, 3}));
  EXPECT_EQ(regionSupports(s), (std::vector<GroupSet>{1, 2, 3}));
  EXPECT_EQ(constantOnlyOperators(s), (std::vector<uint32_t>{2}));
  EXPECT_EQ(dirtyOperators(s, 2), (std::vector<uint8_t>{0, 1, 0, 1, 1}));
  // y changed: a is read by the dirty ADD and is a public output.
  EXPECT_EQ(frontier(s, 2), (std::vector<int32_t>{m.a}));
  // x changed: b is read by the dirty ADD; a is recomputed.
  EXPECT_EQ(frontier(s, 1), (std::vector<int32_t>{m.b_out}));
}

TEST(IncrementalCost, ExactMacsForLinearOperatorsElementsOtherwise) {
  TwoTowers m;
  const auto &ops = m.b.model().subgraphs[0].operators;
  EXPECT_EQ(operatorMacs(m.b.model(), ops[0]), 16u); // [1,4] outputs x 4 inputs
  EXPECT_EQ(operatorMacs(m.b.model(), ops[2]), 1u);  // EXP: one element
  EXPECT_EQ(operatorMacs(m.b.model(), ops[3]), 4u);  // ADD: four elements
  EXPECT_EQ(totalMacs(m.b.model()), 16u + 16u + 1u + 4u + 4u);

  ModelBuilder b;
  const int32_t lhs = b.input("lhs", DType::Float32, {2, 5, 3}); // adj_x: K = 5
  const int32_t rhs = b.input("rhs", DType::Float32, {2, 5, 7});
  const int32_t out = b.tensor("out", DType::Float32, {2, 3, 7});
  circle::BatchMatMulOptionsT o;
  o.adjoint_lhs = true;
  b.op(circle::BuiltinOperator::BATCH_MATMUL, {lhs, rhs}, {out}, ModelBuilder::options(o));
  const int32_t img = b.input("img", DType::Float32, {1, 8, 8, 3});
  const int32_t filt = b.constant("f", f32({6, 3, 3, 3}, randomFloats(162, 3)));
  const int32_t conv = b.tensor("conv", DType::Float32, {1, 6, 6, 6});
  circle::Conv2DOptionsT co;
  co.padding = circle::Padding::VALID;
  co.stride_w = co.stride_h = 1;
  b.op(circle::BuiltinOperator::CONV_2D, {img, filt, -1}, {conv}, ModelBuilder::options(co));
  const int32_t dwf = b.constant("dwf", f32({1, 3, 3, 6}, randomFloats(54, 4)));
  const int32_t dw = b.tensor("dw", DType::Float32, {1, 4, 4, 6});
  circle::DepthwiseConv2DOptionsT dwo;
  dwo.padding = circle::Padding::VALID;
  dwo.stride_w = dwo.stride_h = 1;
  dwo.depth_multiplier = 1;
  b.op(circle::BuiltinOperator::DEPTHWISE_CONV_2D, {conv, dwf, -1}, {dw}, ModelBuilder::options(dwo));
  const auto &bops = b.model().subgraphs[0].operators;
  EXPECT_EQ(operatorMacs(b.model(), bops[0]), 2u * 3 * 7 * 5);
  EXPECT_EQ(operatorMacs(b.model(), bops[1]), 6u * 6 * 6 * (3 * 3 * 3));
  EXPECT_EQ(operatorMacs(b.model(), bops[2]), 4u * 4 * 6 * (3 * 3));
}

TEST(IncrementalPlanner, BothTowersChosenAndTheRestRejectedWithReasons) {
  TwoTowers m;
  auto groups = makeGroups(m.b.model(), {});
  auto s = analyzeSupport(m.b.model(), groups);
  auto plan = planStrategies(m.b.model(), groups, s, {});
  ASSERT_EQ(plan.chosen.size(), 2u);
  EXPECT_EQ(plan.chosen[0].changed, 1u);
  EXPECT_EQ(plan.chosen[1].changed, 2u);
  EXPECT_EQ(plan.chosen[0].macs, 16u + 4u + 4u);
  EXPECT_EQ(plan.retained, (std::vector<int32_t>{m.a, m.b_out}));
  EXPECT_EQ(plan.retained_bytes, 32u);
  EXPECT_TRUE(plan.rejected.empty());
}

TEST(IncrementalPlanner, MaxStrategiesKeepsTheBestPerByte) {
  TwoTowers m;
  auto groups = makeGroups(m.b.model(), {});
  auto s = analyzeSupport(m.b.model(), groups);
  PlanOptions o;
  o.max_strategies = 1;
  auto plan = planStrategies(m.b.model(), groups, s, o);
  ASSERT_EQ(plan.chosen.size(), 1u);
  ASSERT_EQ(plan.rejected.size(), 1u);
  EXPECT_NE(plan.rejected[0].reason.find("max_strategies (1) reached"), std::string::npos) << plan.rejected[0].reason;
}

TEST(IncrementalPlanner, BudgetBelowEveryFrontierLeavesTheMonolithAlone) {
  TwoTowers m;
  auto groups = makeGroups(m.b.model(), {});
  auto s = analyzeSupport(m.b.model(), groups);
  PlanOptions o;
  o.budget = 15; // every frontier is one [1,4] float32 tensor: 16 bytes
  auto plan = planStrategies(m.b.model(), groups, s, o);
  EXPECT_TRUE(plan.chosen.empty());
  ASSERT_EQ(plan.rejected.size(), 2u);
  for (const auto &r : plan.rejected)
    EXPECT_NE(r.reason.find("retains 16 bytes, over the budget of 15 bytes"), std::string::npos) << r.reason;
  // A budget for one frontier: one strategy, the other refused for the budget.
  o.budget = 16;
  plan = planStrategies(m.b.model(), groups, s, o);
  EXPECT_EQ(plan.chosen.size(), 1u);
  ASSERT_EQ(plan.rejected.size(), 1u);
  EXPECT_NE(plan.rejected[0].reason.find("would exceed the budget of 16 bytes"), std::string::npos);
  EXPECT_LE(plan.retained_bytes, 16u);
}

TEST(IncrementalPlanner, EqualDirtySetsMergeAndUnusedInputsDirtyNothing) {
  TwoTowers m;
  m.b.input("z", DType::Float32, {1, 4}); // read by nothing
  auto groups = makeGroups(m.b.model(), {});
  auto s = analyzeSupport(m.b.model(), groups);
  auto plan = planStrategies(m.b.model(), groups, s, {});
  // {x} and {x, z} dirty the same operators: one strategy serving both; likewise for y.
  ASSERT_EQ(plan.chosen.size(), 2u);
  EXPECT_EQ(plan.chosen[0].changed, 1u | 4u);
  EXPECT_EQ(plan.chosen[1].changed, 2u | 4u);
  // {z}: nothing to run; {x, y}: everything, which is the monolith's job.
  ASSERT_EQ(plan.rejected.size(), 2u);
  EXPECT_EQ(plan.rejected[0].changed, 3u); // {x, y, z} is all groups: not a candidate
  EXPECT_EQ(plan.rejected[0].reason, "recomputes every operator that depends on an input (the monolith does)");
  EXPECT_EQ(plan.rejected[1].changed, 4u);
  EXPECT_EQ(plan.rejected[1].reason, "no operator depends on the changed inputs");
}

TEST(IncrementalPlanner, TenGroupsStayBoundedByMaxStrategies) {
  // t_i = tanh(x_i), s = ((t_0 + t_1) + t_2) + ...: 1022 candidates with distinct dirty sets.
  ModelBuilder b;
  int32_t sum = -1;
  for (int i = 0; i < 10; ++i) {
    const int32_t x = b.input("x" + std::to_string(i), DType::Float32, {1, 8});
    const int32_t t = b.tensor("t" + std::to_string(i), DType::Float32, {1, 8});
    b.op(circle::BuiltinOperator::TANH, {x}, {t});
    if (sum < 0) {
      sum = t;
      continue;
    }
    const int32_t next = b.tensor("s" + std::to_string(i), DType::Float32, {1, 8});
    b.op(circle::BuiltinOperator::ADD, {sum, t}, {next}, add());
    sum = next;
  }
  b.output(sum);
  auto groups = makeGroups(b.model(), {});
  ASSERT_EQ(groups.names.size(), 10u);
  auto s = analyzeSupport(b.model(), groups);
  PlanOptions o;
  o.max_strategies = 8;
  const auto start = std::chrono::steady_clock::now();
  auto plan = planStrategies(b.model(), groups, s, o);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(plan.chosen.size(), 8u);
  EXPECT_EQ(plan.chosen.size() + plan.rejected.size(), 1022u);
  EXPECT_LT(elapsed, std::chrono::seconds(2));
  // The cheapest per byte go first: changing only the last input recomputes least.
  EXPECT_TRUE(std::any_of(plan.chosen.begin(), plan.chosen.end(),
                          [](const Candidate &c) { return c.changed == (GroupSet{1} << 9); }));
  auto package = buildPackage(b.model(), groups, s, plan);
  EXPECT_EQ(package.strategies.size(), 10u); // monolith + 8 + all_changed
}

TEST(IncrementalLegality, DynamicVariableEffectsNamesAndStateWritesAreRefused) {
  {
    TwoTowers m; // the frontier tensor a gets a dynamic batch
    m.b.model().subgraphs[0].tensors[m.a].shape_signature = {-1, 4};
    auto groups = makeGroups(m.b.model(), {});
    auto s = analyzeSupport(m.b.model(), groups);
    auto plan = planStrategies(m.b.model(), groups, s, {});
    ASSERT_EQ(plan.chosen.size(), 1u);
    EXPECT_EQ(plan.chosen[0].changed, 1u); // x changed: reads only b
    ASSERT_EQ(plan.rejected.size(), 1u);
    EXPECT_EQ(plan.rejected[0].reason, "frontier tensor 'a' (tensor 5) has a dynamic shape; its size is unbounded");
  }
  {
    TwoTowers m; // a variable tensor anywhere: the model keeps state
    m.b.model().subgraphs[0].tensors[m.k_exp].is_variable = true;
    auto groups = makeGroups(m.b.model(), {});
    auto s = analyzeSupport(m.b.model(), groups);
    auto plan = planStrategies(m.b.model(), groups, s, {});
    EXPECT_TRUE(plan.chosen.empty());
    ASSERT_EQ(plan.rejected.size(), 2u);
    EXPECT_NE(plan.rejected[0].reason.find("is a variable (the model keeps state)"), std::string::npos);
  }
  {
    TwoTowers m; // the x tower ends in a custom operator: effects unknown, never skipped
    auto &model = m.b.model();
    auto &op = model.subgraphs[0].operators[0];
    op.opcode_index = model.operatorCodeIndex(circle::BuiltinOperator::CUSTOM, "Mystery");
    auto groups = makeGroups(model, {});
    auto s = analyzeSupport(model, groups);
    auto plan = planStrategies(model, groups, s, {});
    ASSERT_EQ(plan.chosen.size(), 1u);
    EXPECT_EQ(plan.chosen[0].changed, 1u);
    ASSERT_EQ(plan.rejected.size(), 1u);
    EXPECT_EQ(plan.rejected[0].reason, "CUSTOM(Mystery) (operator 0) has effects and would be skipped");
  }
  {
    TwoTowers m; // the manifest names values by tensor name
    m.b.model().subgraphs[0].tensors[m.b_out].name = "a";
    auto groups = makeGroups(m.b.model(), {});
    auto s = analyzeSupport(m.b.model(), groups);
    auto plan = planStrategies(m.b.model(), groups, s, {});
    EXPECT_TRUE(plan.chosen.empty());
    ASSERT_EQ(plan.rejected.size(), 2u);
    EXPECT_EQ(plan.rejected[0].reason,
              "tensors 5 and 6 of subgraph 0 are both named 'a'; the manifest names values by tensor name");
  }
  {
    TwoTowers m;
    auto groups = makeGroups(m.b.model(), {});
    auto s = analyzeSupport(m.b.model(), groups);
    PlanOptions o;
    o.state_writes = {"running_count"};
    auto plan = planStrategies(m.b.model(), groups, s, o);
    EXPECT_TRUE(plan.chosen.empty());
    ASSERT_EQ(plan.rejected.size(), 2u);
    EXPECT_NE(plan.rejected[0].reason.find("mutates 'running_count' (a buffer or input mutation)"), std::string::npos);
  }
}

TEST(IncrementalDominance, CallableSubsetRule) {
  StrategySummary a{"a", 1, 10, {}, {"r"}, {"region_x", "tail"}};
  StrategySummary b{"b", 1, 20, {}, {"r"}, {"region_x", "region_z", "tail"}};
  EXPECT_TRUE(dominates(a, b));
  EXPECT_EQ(dominatedStrategies({a, b}), (std::vector<std::size_t>{1}));
  // Cheaper everywhere but with a private callable: B can win when that callable is not loaded.
  StrategySummary c{"c", 1, 5, {}, {"r"}, {"region_w"}};
  EXPECT_FALSE(dominates(c, b));
  // Serving fewer change sets, needing another cache entry or refreshing less: no domination.
  StrategySummary d{"d", 3, 20, {}, {"r"}, {"region_x", "region_z", "tail"}};
  EXPECT_FALSE(dominates(b, d));
  StrategySummary e = a;
  e.reads_retained = {"q"};
  EXPECT_FALSE(dominates(e, b));
  StrategySummary f = a;
  f.writes_retained = {};
  EXPECT_FALSE(dominates(f, b));
  // Equal strategies: only the later one goes. The monolith is never pruned.
  EXPECT_EQ(dominatedStrategies({a, a}), (std::vector<std::size_t>{1}));
  StrategySummary mono{"monolithic", 3, 100, {}, {}, {"main"}, true};
  EXPECT_TRUE(dominatedStrategies({a, mono}).empty());
}

TEST(IncrementalIdentity, StructureAndWeightsNotNames) {
  TwoTowers same(true);
  auto groups = makeGroups(same.b.model(), {});
  auto s = analyzeSupport(same.b.model(), groups);
  auto plan = planStrategies(same.b.model(), groups, s, {});
  auto package = buildPackage(same.b.model(), groups, s, plan);
  ASSERT_EQ(package.callables.size(), 3u);
  // FC(x, W) and FC(y, W): the same computation on the same weights.
  EXPECT_EQ(package.callables[0].id, package.callables[1].id);
  EXPECT_NE(package.callables[0].id, package.callables[2].id);
  // Renaming tensors changes nothing.
  TwoTowers renamed(true);
  for (auto &t : renamed.b.model().subgraphs[0].tensors)
    t.name += "_renamed";
  auto p2 = buildPackage(renamed.b.model(), groups, analyzeSupport(renamed.b.model(), groups), plan);
  EXPECT_EQ(p2.callables[2].id, package.callables[2].id);
  // Another valid execution order (EXP of the constant after the ADD): the same ids.
  TwoTowers reordered(true);
  auto &ops = reordered.b.model().subgraphs[0].operators;
  std::swap(ops[2], ops[3]);
  auto s4 = analyzeSupport(reordered.b.model(), groups);
  auto p4 = buildPackage(reordered.b.model(), groups, s4, planStrategies(reordered.b.model(), groups, s4, {}));
  ASSERT_EQ(p4.callables.size(), 3u);
  EXPECT_EQ(p4.callables[2].operators, (std::vector<uint32_t>{2, 3, 4})); // ADD, EXP, MUL now
  EXPECT_EQ(p4.callables[2].id, package.callables[2].id);
  // Different weights: different ids.
  TwoTowers other(false);
  auto p3 = buildPackage(other.b.model(), groups, analyzeSupport(other.b.model(), groups), plan);
  EXPECT_NE(p3.callables[0].id, p3.callables[1].id);
}

TEST(IncrementalPackage, RegionsTailsAndStrategies) {
  TwoTowers m;
  auto groups = makeGroups(m.b.model(), {});
  auto s = analyzeSupport(m.b.model(), groups);
  auto plan = planStrategies(m.b.model(), groups, s, {});
  auto package = buildPackage(m.b.model(), groups, s, plan);
  ASSERT_EQ(package.callables.size(), 3u);
  EXPECT_EQ(package.callables[0].signature, "region_x");
  EXPECT_EQ(package.callables[1].signature, "region_y");
  EXPECT_EQ(package.callables[2].signature, "tail_x__y");
  EXPECT_EQ(package.callables[0].outputs, (std::vector<int32_t>{m.a}));
  // The tail copies the constant-only EXP and reads a and b.
  EXPECT_EQ(package.callables[2].operators, (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(package.callables[2].inputs, (std::vector<int32_t>{m.a, m.b_out}));
  ASSERT_EQ(package.strategies.size(), 4u);
  EXPECT_EQ(package.strategies[0].name, "monolithic");
  EXPECT_EQ(package.strategies[0].writes_retained, (std::vector<int32_t>{m.a})); // a is a public output
  EXPECT_EQ(package.strategies[1].name, "changed_x");
  EXPECT_EQ(package.strategies[1].steps, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(package.strategies[1].reads_retained, (std::vector<int32_t>{m.b_out}));
  EXPECT_EQ(package.strategies[1].writes_retained, (std::vector<int32_t>{m.a}));
  EXPECT_EQ(package.strategies[2].name, "changed_y");
  EXPECT_EQ(package.strategies[3].name, "all_changed");
  EXPECT_EQ(package.strategies[3].steps, (std::vector<std::size_t>{0, 1, 2}));
}

std::string verifierErrors(const CircleModel &model) {
  std::string out;
  for (const auto &d : verifyCircleModel(model, {.warnings = false}))
    if (d.severity == CircleSeverity::Error)
      out += d.str() + "\n";
  return out;
}

CircleModel compiled(CircleModel model, const std::map<std::string, OptionValue> &options = {}) {
  const auto *entry = incrementalRegistry().findCirclePass("incremental-strategies");
  if (!entry)
    throw Error("no Circle pass incremental-strategies");
  auto pass = entry->spec.create(Options::resolve("incremental-strategies", entry->spec.options, options));
  PassContext context(incrementalRegistry());
  EXPECT_TRUE(pass->run(model, context));
  EXPECT_FALSE(pass->run(model, context)); // once per model
  return model;
}

nlohmann::json manifestOf(const CircleModel &model) {
  for (const auto &[name, buffer] : model.metadata)
    if (name == kManifestName) {
      auto bytes = model.buffers.at(buffer).data->contiguousBytes();
      return nlohmann::json::parse(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
    }
  throw Error("no manifest");
}

TEST(IncrementalPackage, FusedLayoutOneCallablePerStrategy) {
  TwoTowers m;
  auto groups = makeGroups(m.b.model(), {});
  auto s = analyzeSupport(m.b.model(), groups);
  auto plan = planStrategies(m.b.model(), groups, s, {});
  auto package = buildPackage(m.b.model(), groups, s, plan, /*fused=*/true);
  ASSERT_EQ(package.callables.size(), 5u);
  const Callable &f = package.callables[3];
  EXPECT_TRUE(f.fused);
  EXPECT_EQ(f.signature, "fused_changed_x");
  EXPECT_EQ(f.operators, (std::vector<uint32_t>{0, 2, 3, 4})); // FC(x), EXP(k), ADD, MUL
  EXPECT_EQ(f.inputs, (std::vector<int32_t>{m.x, m.b_out}));
  EXPECT_EQ(f.outputs, (std::vector<int32_t>{m.a, m.c})); // refreshes a, computes c
  EXPECT_EQ(package.strategies[1].fused, std::optional<std::size_t>{3});
  EXPECT_EQ(package.strategies[1].steps, (std::vector<std::size_t>{0, 2})); // the steps stay
  EXPECT_FALSE(package.strategies[3].fused.has_value());                   // all_changed

  CircleModel model = compiled(m.b.model(), {{"fused", true}});
  EXPECT_EQ(verifierErrors(model), "");
  EXPECT_EQ(model.subgraphs.size(), 6u);
  auto manifest = manifestOf(model);
  EXPECT_EQ(manifest["strategies"][1]["fused"], "fused_changed_x");
  EXPECT_EQ(manifest["callables"][3]["kind"], "fused_strategy");
}

TEST(IncrementalCompiler, PackagedModelVerifiesSharesBuffersAndMatchesTheMonolith) {
  TwoTowers m;
  const CircleModel original = m.b.model();
  CircleModel model = compiled(original);
  EXPECT_EQ(verifierErrors(model), "");
  ASSERT_EQ(model.subgraphs.size(), 4u);
  // Subgraph 0 untouched; weights stored once (one more buffer: the manifest).
  EXPECT_EQ(model.subgraphs[0].operators.size(), original.subgraphs[0].operators.size());
  EXPECT_EQ(model.subgraphs[0].outputs, original.subgraphs[0].outputs);
  EXPECT_EQ(model.buffers.size(), original.buffers.size() + 1);
  std::vector<std::string> keys;
  for (const auto &sig : model.signatures)
    keys.push_back(sig.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"main", "region_x", "region_y", "tail_x__y"}));
  auto manifest = manifestOf(model);
  EXPECT_EQ(manifest["format"], kManifestName);
  EXPECT_EQ(manifest["strategies"].size(), 4u);
  EXPECT_EQ(manifest["strategies"][1]["name"], "changed_x");
  EXPECT_EQ(manifest["strategies"][1]["steps"], nlohmann::json::array({"region_x", "tail_x__y"}));
  EXPECT_EQ(manifest["retained"][0]["name"], "a");
  EXPECT_EQ(manifest["retained"][0]["support"], nlohmann::json::array({"x"}));
  EXPECT_EQ(manifest["retained"][0]["producer"], "region_x");
  EXPECT_EQ(manifest["retained"][0]["producer_id"], manifest["callables"][0]["id"]);
  EXPECT_EQ(manifest["retained"][0]["output_index"], 0);
  EXPECT_TRUE(manifest["rejected"].empty());

  // Run changed_y by hand: a from one input set, then region_y + tail on a new y.
  auto shared = std::make_shared<const CircleModel>(model);
  auto x0 = f32({1, 4}, randomFloats(4, 11)), y0 = f32({1, 4}, randomFloats(4, 12)), y1 = f32({1, 4}, randomFloats(4, 13));
  CircleInterpreter interp(shared);
  auto cached_a = interp.run({x0}, 1).at(0);
  auto b1 = interp.run({y1}, 2).at(0);
  auto c1 = interp.run({cached_a, b1}, 3).at(0);
  auto mono = interp.run({x0, y1}, 0);
  EXPECT_EQ(c1->contiguousBytes(), mono[0]->contiguousBytes());
  EXPECT_EQ(cached_a->contiguousBytes(), mono[1]->contiguousBytes());

  // Deterministic bytes.
  EXPECT_EQ(serializeCircle(model), serializeCircle(compiled(original)));
}

TEST(IncrementalCompiler, BudgetBelowEveryFrontierGivesTheMonolithAlone) {
  TwoTowers m;
  CircleModel model = compiled(m.b.model(), {{"retained_budget", int64_t{8}}});
  EXPECT_EQ(model.subgraphs.size(), 1u);
  ASSERT_EQ(model.signatures.size(), 1u);
  EXPECT_EQ(model.signatures[0].key, "main");
  auto manifest = manifestOf(model);
  ASSERT_EQ(manifest["strategies"].size(), 1u);
  EXPECT_EQ(manifest["strategies"][0]["name"], "monolithic");
  EXPECT_EQ(manifest["rejected"].size(), 2u);
  EXPECT_EQ(manifest["budget"]["retained_bytes"], 8);
}

TEST(IncrementalCompiler, StateWritesRefuseEveryStrategyWithTheReason) {
  TwoTowers m;
  CircleModel model =
      compiled(m.b.model(), {{"state_writes", std::vector<std::string>{"steps"}}});
  auto manifest = manifestOf(model);
  ASSERT_EQ(manifest["strategies"].size(), 1u);
  ASSERT_EQ(manifest["rejected"].size(), 2u);
  EXPECT_NE(manifest["rejected"][0]["reason"].get<std::string>().find("mutates 'steps'"), std::string::npos);
}

TEST(IncrementalCompiler, StrategiesThatFailValidationAreDroppedWithTheReason) {
  // x*x and y*y meet in a product: ADD/MUL only, which test-elementwise prepares, but it runs
  // subgraph 0 only, so every region chain fails and only the monolith is emitted.
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {1, 4});
  const int32_t y = b.input("y", DType::Float32, {1, 4});
  const int32_t xx = b.tensor("xx", DType::Float32, {1, 4});
  const int32_t yy = b.tensor("yy", DType::Float32, {1, 4});
  const int32_t p = b.tensor("p", DType::Float32, {1, 4});
  b.op(circle::BuiltinOperator::MUL, {x, x}, {xx}, mul());
  b.op(circle::BuiltinOperator::MUL, {y, y}, {yy}, mul());
  b.op(circle::BuiltinOperator::ADD, {xx, yy}, {p}, add());
  b.output(p);
  CircleModel model = compiled(b.model(), {{"runtime", std::string("test-elementwise")}});
  EXPECT_EQ(model.subgraphs.size(), 1u);
  auto manifest = manifestOf(model);
  ASSERT_EQ(manifest["strategies"].size(), 1u);
  ASSERT_EQ(manifest["rejected"].size(), 2u);
  for (const auto &r : manifest["rejected"])
    EXPECT_NE(r["reason"].get<std::string>().find("validation on the runtime 'test-elementwise': the regions do not "
                                                  "run: test-elementwise runs subgraph 0 only"),
              std::string::npos)
        << r["reason"];
  EXPECT_EQ(manifest["validation"]["runtime"], "test-elementwise");

  // A runtime that refuses the packaged model (FULLY_CONNECTED): every strategy goes too.
  TwoTowers towers;
  model = compiled(towers.b.model(), {{"runtime", std::string("test-elementwise")}});
  manifest = manifestOf(model);
  ASSERT_EQ(manifest["strategies"].size(), 1u);
  EXPECT_NE(manifest["rejected"][0]["reason"].get<std::string>().find(
                "validation: the runtime 'test-elementwise' cannot run the packaged model: the test runtime "
                "test-elementwise cannot run FULLY_CONNECTED"),
            std::string::npos)
      << manifest["rejected"][0]["reason"];
}

TEST(IncrementalCompiler, UnknownRuntimeIsAnError) {
  TwoTowers m;
  EXPECT_THROW(compiled(m.b.model(), {{"runtime", std::string("no-such-runtime")}}), Error);
}

} // namespace
} // namespace tico::test
