// The interpreter's static memory plan (core/interpreter/src/memory_plan.h): lifetimes, views,
// in-place reuse, what is left to the pool, and — on random graphs — that no two tensors alive
// at the same operator share bytes unless the plan put them in one group on purpose. Then whole
// models: outputs with the plan are bitwise those without it (TICO_MEMORY_PLAN=0).
#include "interp_test_support.h"
#include "memory_plan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace tico {
namespace {

using interp::MemoryPlan;
using interp::PlanOperator;
using interp::PlanTensor;
using interp::planMemory;

std::vector<PlanTensor> sized(std::vector<std::size_t> bytes) {
  std::vector<PlanTensor> out;
  for (std::size_t b : bytes)
    out.push_back({b, false});
  return out;
}

PlanOperator unary(int32_t in, int32_t out, uint32_t in_place = 0) { return {{in}, {out}, false, false, in_place}; }

TEST(InterpMemoryPlan, ChainReusesTheMemoryOfDeadTensors) {
  // x -> t1 -> t2 -> t3 -> y: t1 dies when t2 is written, so t3 can take t1's place.
  auto tensors = sized({256, 256, 256, 256, 256});
  tensors[0].external = tensors[4].external = true; // input x, output y
  const MemoryPlan plan = planMemory(tensors, {unary(0, 1), unary(1, 2), unary(2, 3), unary(3, 4)});
  EXPECT_EQ(plan.offset[0], -1);
  EXPECT_EQ(plan.offset[4], -1);
  EXPECT_EQ(plan.planned, 3u);
  EXPECT_NE(plan.offset[1], plan.offset[2]);
  EXPECT_NE(plan.offset[2], plan.offset[3]);
  EXPECT_EQ(plan.offset[1], plan.offset[3]);
  EXPECT_EQ(plan.arena_bytes, 512u);
  EXPECT_EQ(plan.tensor_bytes, 768u);
  EXPECT_EQ(plan.in_place, 0u);
}

TEST(InterpMemoryPlan, InPlaceOperatorsWriteOverTheInputTheyReadLast) {
  auto tensors = sized({256, 256, 256, 256, 256});
  tensors[0].external = tensors[4].external = true;
  const MemoryPlan plan =
      planMemory(tensors, {unary(0, 1), unary(1, 2, 1u),
                           unary(2, 3, 1u), unary(3, 4)});
  EXPECT_EQ(plan.in_place, 2u);
  EXPECT_EQ(plan.offset[1], plan.offset[2]);
  EXPECT_EQ(plan.offset[2], plan.offset[3]);
  EXPECT_EQ(plan.arena_bytes, 256u);
}

TEST(InterpMemoryPlan, NoInPlaceWhenTheInputLivesOnOrIsReadTwice) {
  // t1 is read again after the in-place candidate (op 2 reads it): no reuse. ADD(t3, t3) may
  // not write over t3 either (the kernel would read its other operand after writing).
  auto tensors = sized({64, 64, 64, 64, 64, 64});
  tensors[0].external = tensors[5].external = true;
  const uint32_t either = 3u;
  const MemoryPlan plan = planMemory(tensors, {unary(0, 1), unary(1, 2, either), {{1, 2}, {3}, false, false, either},
                                               {{3, 3}, {4}, false, false, either}, unary(4, 5)});
  EXPECT_EQ(plan.in_place, 1u); // only op 2, over t1, which it reads for the last time
  EXPECT_NE(plan.offset[1], plan.offset[2]);
  EXPECT_EQ(plan.offset[1], plan.offset[3]);
  EXPECT_NE(plan.offset[3], plan.offset[4]);
}

TEST(InterpMemoryPlan, ViewsExtendTheLifetimeOfTheirSource) {
  // t2 = RESHAPE(t1) is read at op 3: t1's bytes must outlive op 1, so t3 cannot take them.
  auto tensors = sized({64, 64, 64, 64, 64});
  tensors[0].external = tensors[4].external = true;
  const MemoryPlan plan = planMemory(
      tensors, {unary(0, 1), {{1}, {2}, true, false, 0}, unary(0, 3), {{2, 3}, {4}, false, false, 0}});
  EXPECT_EQ(plan.offset[1], plan.offset[2]);
  EXPECT_NE(plan.offset[3], plan.offset[1]);
}

TEST(InterpMemoryPlan, UnknownSizesControlFlowAndReturnedViewsAreLeftToThePool) {
  auto tensors = sized({64, 64, 64, 64, 64, 64, 64});
  tensors[0].external = tensors[6].external = true;
  tensors[2].bytes.reset(); // a dynamic dim
  const MemoryPlan plan = planMemory(tensors, {unary(0, 1), unary(1, 2), {{2}, {3}, false, true, 0}, unary(3, 4),
                                               {{4}, {5}, true, false, 0}, {{5}, {6}, true, false, 0}});
  EXPECT_GE(plan.offset[1], 0);
  EXPECT_EQ(plan.offset[2], -1); // unknown size
  EXPECT_EQ(plan.offset[3], -1); // written by control flow
  EXPECT_EQ(plan.offset[4], -1); // its view chain ends in the subgraph output
  EXPECT_EQ(plan.offset[5], -1);
  EXPECT_EQ(plan.planned, 1u);
}

TEST(InterpMemoryPlan, RandomGraphsNeverShareBytesBetweenLiveTensors) {
  std::mt19937 rng(7);
  std::size_t in_place = 0, reused = 0; // the property must not hold vacuously
  for (int round = 0; round < 300; ++round) {
    const int n_ops = 5 + static_cast<int>(rng() % 40);
    const int n_inputs = 1 + static_cast<int>(rng() % 3);
    std::vector<PlanTensor> tensors;
    for (int i = 0; i < n_inputs; ++i)
      tensors.push_back({std::size_t{64} * (1 + rng() % 8), true});
    std::vector<PlanOperator> ops;
    for (int o = 0; o < n_ops; ++o) {
      const int available = static_cast<int>(tensors.size());
      const int arity = 1 + static_cast<int>(rng() % 2);
      PlanOperator op;
      for (int a = 0; a < arity; ++a)
        op.inputs.push_back(static_cast<int32_t>(rng() % static_cast<unsigned>(available)));
      const std::size_t in_bytes = *tensors[static_cast<std::size_t>(op.inputs[0])].bytes;
      const unsigned kind = rng() % 4;
      op.aliases_input0 = kind == 0 && arity == 1;
      op.in_place_inputs = kind == 1 ? 3u : 0u;
      const std::size_t bytes = op.aliases_input0 || kind == 1 ? in_bytes : std::size_t{64} * (1 + rng() % 8);
      tensors.push_back({bytes, false});
      op.outputs.push_back(static_cast<int32_t>(tensors.size() - 1));
      ops.push_back(op);
    }
    tensors.back().external = true; // the subgraph output
    const MemoryPlan plan = planMemory(tensors, ops);
    in_place += plan.in_place;
    reused += plan.tensor_bytes - plan.arena_bytes;
    // Lifetimes as the runtime sees them: a view keeps its source's bytes in use.
    const std::size_t n = tensors.size();
    std::vector<int> first(n, -1), last(n, -1), source(n);
    for (std::size_t t = 0; t < n; ++t)
      source[t] = static_cast<int>(t);
    for (std::size_t o = 0; o < ops.size(); ++o) {
      for (int32_t t : ops[o].inputs)
        last[static_cast<std::size_t>(t)] = static_cast<int>(o);
      const auto y = static_cast<std::size_t>(ops[o].outputs[0]);
      first[y] = last[y] = static_cast<int>(o);
      if (ops[o].aliases_input0)
        source[y] = source[static_cast<std::size_t>(ops[o].inputs[0])];
    }
    std::vector<int> bytes_last(n, -1); // last use of the bytes each source owns
    for (std::size_t t = 0; t < n; ++t)
      bytes_last[static_cast<std::size_t>(source[t])] = std::max(bytes_last[static_cast<std::size_t>(source[t])], last[t]);
    for (std::size_t a = 0; a < n; ++a) {
      if (plan.offset[a] < 0 || source[a] != static_cast<int>(a))
        continue;
      for (std::size_t b = a + 1; b < n; ++b) {
        if (plan.offset[b] < 0 || source[b] != static_cast<int>(b))
          continue;
        const bool same_time = first[a] <= bytes_last[b] && first[b] <= bytes_last[a];
        const auto a0 = static_cast<std::size_t>(plan.offset[a]), b0 = static_cast<std::size_t>(plan.offset[b]);
        const bool same_bytes = a0 < b0 + *tensors[b].bytes && b0 < a0 + *tensors[a].bytes;
        if (!same_time || !same_bytes)
          continue;
        // Allowed only as in-place: b written by an in-place operator reading a for the last time.
        const PlanOperator &writer = ops[static_cast<std::size_t>(first[b])];
        bool reads_a_last = false;
        for (int32_t in : writer.inputs)
          reads_a_last |= source[static_cast<std::size_t>(in)] == static_cast<int>(a);
        EXPECT_TRUE(writer.in_place_inputs != 0 && reads_a_last && bytes_last[a] == first[b] && a0 == b0)
            << "round " << round << ": tensors " << a << " and " << b << " share bytes while both are live";
      }
    }
    EXPECT_LE(plan.arena_bytes, plan.tensor_bytes);
  }
  EXPECT_GT(in_place, 100u);
  EXPECT_GT(reused, 0u);
}

// x -> EXP -> RESHAPE -> ADD(with x) -> LOGISTIC -> MUL(itself) -> output: views, in-place
// operators and a shared operand in one model, run with and without the plan.
std::shared_ptr<const CircleModel> mixedModel() {
  using B = circle::BuiltinOperator;
  test::ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {4, 8});
  const int32_t e = b.tensor("e", DType::Float32, {4, 8});
  const int32_t shape = b.constant("shape", test::i32({2}, {8, 4}));
  const int32_t r = b.tensor("r", DType::Float32, {8, 4});
  const int32_t x2 = b.tensor("x2", DType::Float32, {8, 4});
  const int32_t shape2 = b.constant("shape2", test::i32({2}, {8, 4}));
  const int32_t a = b.tensor("a", DType::Float32, {8, 4});
  const int32_t s = b.tensor("s", DType::Float32, {8, 4});
  const int32_t m = b.tensor("m", DType::Float32, {8, 4});
  const int32_t y = b.tensor("y", DType::Float32, {8, 4});
  b.op(B::EXP, {x}, {e});
  b.op(B::RESHAPE, {e, shape}, {r});
  b.op(B::RESHAPE, {x, shape2}, {x2});
  b.op(B::ADD, {r, x2}, {a});
  b.op(B::LOGISTIC, {a}, {s});
  b.op(B::MUL, {s, s}, {m});
  b.op(B::SUB, {m, r}, {y});
  b.output(y);
  return b.build();
}

TEST(InterpMemoryPlan, ModelOutputsAreBitwiseThoseWithoutThePlan) {
  const auto input = test::f32({4, 8}, test::randomFloats(32, 11));
  const auto planned = test::runModel(mixedModel(), {input});
  ::setenv("TICO_MEMORY_PLAN", "0", 1);
  const auto pooled = test::runModel(mixedModel(), {input});
  ::unsetenv("TICO_MEMORY_PLAN");
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(test::valuesOf<float>(*planned[0]), test::valuesOf<float>(*pooled[0]));
  // And against the arithmetic itself.
  const std::vector<float> in = test::valuesOf<float>(*input);
  const std::vector<float> got = test::valuesOf<float>(*planned[0]);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float e = std::exp(in[i]);
    const float s = 1.0f / (1.0f + std::exp(-(e + in[i])));
    EXPECT_NEAR(got[i], s * s - e, 1e-5f * std::max(1.0f, std::abs(e))) << i;
  }
}

} // namespace
} // namespace tico
