// Golden tests of the clean-up passes: dce (dead operators), compact (dead tensors, buffers and
// operator codes, canonical numbering), deduplicate-constants (identical constant buffers and
// tensors) and cse (identical operators), including models with several subgraphs.
#include "circle_pass_test_support.h"

#include "tico/circle/edit.h"
#include "tico/circle/writer.h"

namespace tico::test {
namespace {

using circle::BuiltinOperator;

TEST(CirclePassDce, UnusedChainGoesLiveOperatorsStay) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t d1 = b.tensor("dead1", DType::Float32, {2, 3});
  int32_t d2 = b.tensor("dead2", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::EXP, {x}, {d1});
  b.op(BuiltinOperator::NEG, {d1}, {d2});
  b.op(BuiltinOperator::ABS, {x}, {y});
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "dce")); });
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ABS});
  EXPECT_FALSE(runCirclePass(m, "dce"));
}

// Subgraph 0 calls subgraphs 1 and 2 through IF; subgraph 1 has a dead operator.
CircleModel ifModel() {
  ModelBuilder b;
  int32_t cond = b.input("cond", DType::Bool, {1});
  int32_t x = b.input("x", DType::Float32, {2});
  int32_t y = b.tensor("y", DType::Float32, {2});
  circle::IfOptionsT options;
  options.then_subgraph_index = 1;
  options.else_subgraph_index = 2;
  b.op(BuiltinOperator::IF, {cond, x}, {y}, ModelBuilder::options(options));
  b.output(y);
  for (std::size_t s : {1u, 2u}) {
    b.subgraph(s);
    int32_t in = b.input("in", DType::Float32, {2});
    int32_t out = b.tensor("out", DType::Float32, {2});
    int32_t dead = b.tensor("dead", DType::Float32, {2});
    b.op(s == 1 ? BuiltinOperator::ABS : BuiltinOperator::NEG, {in}, {out});
    if (s == 1)
      b.op(BuiltinOperator::EXP, {in}, {dead});
    b.output(out);
  }
  return b.model();
}

TEST(CirclePassDce, MultiSubgraphKeepsControlFlowAndInterfaces) {
  CircleModel m = ifModel();
  auto run = [](const CircleModel &model, bool c) {
    return runModel(std::make_shared<const CircleModel>(model), {boolean({1}, {c}), f32({2}, {-1.5f, 2.0f})});
  };
  auto then_before = run(m, true), else_before = run(m, false);
  EXPECT_TRUE(runCirclePass(m, "dce"));
  EXPECT_EQ(opCodes(m, 0), std::vector<BuiltinOperator>{BuiltinOperator::IF});
  EXPECT_EQ(opCodes(m, 1), std::vector<BuiltinOperator>{BuiltinOperator::ABS});
  EXPECT_EQ(opCodes(m, 2), std::vector<BuiltinOperator>{BuiltinOperator::NEG});
  EXPECT_EQ(m.subgraphs[1].inputs.size(), 1u);
  EXPECT_TRUE(runCirclePass(m, "compact"));
  EXPECT_EQ(m.subgraphs[1].tensors.size(), 2u);
  EXPECT_EQ(maxRelativeDifference(run(m, true), then_before), 0.0);
  EXPECT_EQ(maxRelativeDifference(run(m, false), else_before), 0.0);
}

TEST(CirclePassCompact, DropsUnusedTensorsBuffersAndCodesAndIsIdempotent) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  b.constant("unused", f32({3}, {1, 2, 3}));
  int32_t k = b.constant("k", f32({3}, {4, 5, 6}));
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ADD, {x, k}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  m.operatorCodeIndex(BuiltinOperator::CONV_2D); // a code nothing uses
  ASSERT_EQ(m.buffers.size(), 3u);
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "compact")); });
  EXPECT_EQ(m.subgraphs[0].tensors.size(), 3u);
  EXPECT_EQ(m.buffers.size(), 2u);
  EXPECT_EQ(m.operator_codes.size(), 1u);
  // Canonical order: inputs first, then operator operands in execution order.
  EXPECT_EQ(m.subgraphs[0].tensors[0].name, "x");
  EXPECT_EQ(m.subgraphs[0].tensors[1].name, "k");
  EXPECT_EQ(m.subgraphs[0].tensors[2].name, "y");
  EXPECT_FALSE(runCirclePass(m, "compact"));
}

TEST(CirclePassCompact, IsTheLibraryCompactInFirstUseOrderWithUniqueNames) {
  // Tensors created out of use order, a duplicate name, an unused constant and code.
  ModelBuilder b;
  int32_t y = b.tensor("t", DType::Float32, {2, 3});
  b.constant("unused", f32({3}, {1, 2, 3}));
  int32_t k = b.constant("k", f32({3}, {4, 5, 6}));
  int32_t t = b.tensor("t", DType::Float32, {2, 3});
  int32_t x = b.input("x", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ADD, {x, k}, {t}, addOptions());
  b.op(BuiltinOperator::ABS, {t}, {y});
  b.output(y);
  CircleModel m = b.model();
  m.operatorCodeIndex(BuiltinOperator::CONV_2D);

  CircleModel direct = m;
  CompactOptions options;
  options.order = CompactOrder::FirstUse;
  options.unique_names = true;
  const CompactResult result = compact(direct, options);
  EXPECT_TRUE(result.reordered);
  EXPECT_EQ(result.renamed, 1u);

  EXPECT_TRUE(runCirclePass(m, "compact"));
  EXPECT_EQ(serializeCircle(m), serializeCircle(direct));
  EXPECT_EQ(m.subgraphs[0].tensors[0].name, "x");
  EXPECT_EQ(m.subgraphs[0].tensors[2].name, "t_1"); // the ADD's output; the output keeps "t"
  EXPECT_FALSE(runCirclePass(m, "compact"));
}

TEST(CirclePassDeduplicateConstants, EqualPayloadsShareOneBufferAndTensor) {
  // Two ADDs of x with equal constants (separate buffers), plus a different constant.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t k1 = b.constant("k1", f32({3}, {1, 2, 3}));
  int32_t k2 = b.constant("k2", f32({3}, {1, 2, 3}));
  int32_t k3 = b.constant("k3", f32({3}, {1, 2, 4}));
  int32_t a = b.tensor("a", DType::Float32, {2, 3});
  int32_t c = b.tensor("c", DType::Float32, {2, 3});
  int32_t d = b.tensor("d", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ADD, {x, k1}, {a}, addOptions());
  b.op(BuiltinOperator::ADD, {x, k2}, {c}, addOptions());
  b.op(BuiltinOperator::ADD, {x, k3}, {d}, addOptions());
  b.output(a);
  b.output(c);
  b.output(d);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "deduplicate-constants"));
    runCirclePass(model, "compact");
  });
  const auto &ops = m.subgraphs[0].operators;
  EXPECT_EQ(ops[0].inputs[1], ops[1].inputs[1]);
  EXPECT_NE(ops[0].inputs[1], ops[2].inputs[1]);
  EXPECT_EQ(m.buffers.size(), 3u); // sentinel + two distinct payloads
}

TEST(CirclePassDeduplicateConstants, SameBytesDifferentShapeStaySeparate) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 2});
  int32_t k1 = b.constant("k1", f32({4}, {1, 2, 3, 4}));
  int32_t k2 = b.constant("k2", f32({2, 2}, {1, 2, 3, 4}));
  int32_t shape = b.constant("shape", i32({2}, {2, 2}));
  int32_t r = b.tensor("r", DType::Float32, {2, 2});
  int32_t a = b.tensor("a", DType::Float32, {2, 2});
  int32_t y = b.tensor("y", DType::Float32, {2, 2});
  b.op(BuiltinOperator::RESHAPE, {k1, shape}, {r}, reshapeOptions({2, 2}));
  b.op(BuiltinOperator::ADD, {x, r}, {a}, addOptions());
  b.op(BuiltinOperator::ADD, {a, k2}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "deduplicate-constants"));
  EXPECT_NE(m.subgraphs[0].tensors[k1].buffer, m.subgraphs[0].tensors[k2].buffer);
}

TEST(CirclePassDeduplicateConstants, BuffersAreSharedAcrossSubgraphs) {
  ModelBuilder b;
  for (std::size_t s = 0; s < 2; ++s) {
    b.subgraph(s);
    int32_t x = b.input("x", DType::Float32, {3});
    int32_t k = b.constant("k", f32({3}, {7, 8, 9}));
    int32_t y = b.tensor("y", DType::Float32, {3});
    b.op(BuiltinOperator::MUL, {x, k}, {y}, mulOptions());
    b.output(y);
  }
  CircleModel m = b.model();
  EXPECT_TRUE(runCirclePass(m, "deduplicate-constants"));
  EXPECT_EQ(m.subgraphs[0].tensors[1].buffer, m.subgraphs[1].tensors[1].buffer);
  runCirclePass(m, "compact");
  EXPECT_EQ(m.buffers.size(), 2u);
}

TEST(CirclePassCse, IdenticalOperatorsMergeDifferentOnesStay) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t e1 = b.tensor("e1", DType::Float32, {2, 3});
  int32_t e2 = b.tensor("e2", DType::Float32, {2, 3});
  int32_t n = b.tensor("n", DType::Float32, {2, 3});
  int32_t s = b.tensor("s", DType::Float32, {2, 3});
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  b.op(BuiltinOperator::EXP, {x}, {e1});
  b.op(BuiltinOperator::EXP, {x}, {e2});
  b.op(BuiltinOperator::NEG, {x}, {n});
  b.op(BuiltinOperator::ADD, {e1, e2}, {s}, addOptions());
  b.op(BuiltinOperator::ADD, {s, n}, {y}, addOptions());
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "cse"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(countOps(m, BuiltinOperator::EXP), 1u);
  EXPECT_EQ(countOps(m, BuiltinOperator::NEG), 1u);
  const CircleOperator *add = opsOf(m, BuiltinOperator::ADD)[0];
  EXPECT_EQ(add->inputs[0], add->inputs[1]);
}

TEST(CirclePassCse, DifferentOptionsDoNotMerge) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t k = b.constant("k", f32({}, {1.0f}));
  int32_t a1 = b.tensor("a1", DType::Float32, {2, 3});
  int32_t a2 = b.tensor("a2", DType::Float32, {2, 3});
  b.op(BuiltinOperator::ADD, {x, k}, {a1}, addOptions());
  b.op(BuiltinOperator::ADD, {x, k}, {a2}, addOptions(circle::ActivationFunctionType::RELU));
  b.output(a1);
  b.output(a2);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "cse"));
  EXPECT_EQ(countOps(m, BuiltinOperator::ADD), 2u);
}

} // namespace
} // namespace tico::test
