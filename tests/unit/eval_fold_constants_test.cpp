// fold-constants (aten-eval plugin) on small graphs.
#include "pt2/torch_op_table.h"
#include "eval_test_support.h"
#include "tico/plugin/loader.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

namespace tico {
namespace {

using namespace evaltest;

class FoldConstants : public ::testing::Test {
protected:
  void SetUp() override {
    TICO_REQUIRE_ATEN_EVAL();
  }

  // Runs the pass with `options` (a map of option values) and returns whether it changed g.
  bool fold(const std::map<std::string, OptionValue> &options = {}) {
    const Registered<PassSpec> *spec = atenEval()->registry.findPass("fold-constants");
    EXPECT_NE(spec, nullptr);
    auto pass = spec->spec.create(Options::resolve("fold-constants", spec->spec.options, options));
    PassContext context(atenEval()->registry);
    bool changed = pass->run(g, context);
    g.verify();
    return changed;
  }

  std::size_t count(const std::string &op_text) const {
    std::size_t n = 0;
    for (const auto &node : g.nodes())
      n += node->op() == op(op_text);
    return n;
  }

  Graph g{&tico::pt2::torchOpSchemas()};
};

TEST_F(FoldConstants, PermuteOfAWeightFoldsAndTheUserInputNodeStays) {
  Value *x = g.addInput(InputKind::User, "x", DType::Float32, {2, 3});
  // w = [[1, 2], [3, 4], [5, 6]]
  Value *w = g.addInput(InputKind::Parameter, "w", DType::Float32, {3, 2}, "w", f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  Node *perm = g.createNode(op("aten::permute.default"), {Argument::value(w), Argument::ints({1, 0})},
                            DType::Float32, {2, 3});
  Node *add = g.createNode(op("aten::add.Tensor"), {Argument::value(x), Argument::value(perm->output())},
                           DType::Float32, {2, 3});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(add->output()), ""});

  EXPECT_TRUE(fold());
  EXPECT_EQ(count("aten::permute.default"), 0u);
  ASSERT_EQ(count("aten::add.Tensor"), 1u);
  const Value *other = g.nodes().front()->arg("other").asValue();
  ASSERT_TRUE(other->isConstant());
  EXPECT_EQ(other->dtype(), DType::Float32);
  EXPECT_EQ(other->shape(), staticShape({2, 3}));
  EXPECT_EQ(valuesOf(*other->constant()), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  // The permuted weight is a view of the parameter's storage, not a copy.
  EXPECT_EQ(other->constant()->storage, w->constant()->storage);

  EXPECT_FALSE(fold()) << "nothing is left to fold";
}

TEST_F(FoldConstants, ChainsFoldInOneRunAndGraphOutputsAreReplaced) {
  Value *a = g.addInput(InputKind::Buffer, "a", DType::Float32, {2}, "a", f32({2}, {1, 2}));
  Value *b = g.addConstant("b", f32({2}, {2, 3}));
  Node *add = g.createNode(op("aten::add.Tensor"), {Argument::value(a), Argument::value(b)}, DType::Float32, {2});
  Node *mul = g.createNode(op("aten::mul.Tensor"), {Argument::value(add->output()), Argument::value(b)},
                           DType::Float32, {2});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(mul->output()), ""});

  EXPECT_TRUE(fold());
  EXPECT_EQ(g.numNodes(), 0u);
  std::vector<Value *> outs = g.userOutputs();
  ASSERT_EQ(outs.size(), 1u);
  ASSERT_TRUE(outs[0]->isConstant());
  EXPECT_EQ(valuesOf(*outs[0]->constant()), (std::vector<float>{(1 + 2) * 2, (2 + 3) * 3}));
}

TEST_F(FoldConstants, MaxBytesKeepsResultsThatGrowTheModel) {
  Value *c = g.addConstant("c", f32({1}, {7}));
  Node *expand = g.createNode(op("aten::expand.default"), {Argument::value(c), Argument::ints({1000})},
                              DType::Float32, {1000});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(expand->output()), ""});

  // 4000 result bytes > 100 and > the 4 input bytes: kept.
  EXPECT_FALSE(fold({{"max_bytes", int64_t{100}}}));
  EXPECT_EQ(count("aten::expand.default"), 1u);
  // Under the default limit it folds.
  EXPECT_TRUE(fold());
  EXPECT_EQ(count("aten::expand.default"), 0u);
  EXPECT_EQ(valuesOf(*g.userOutputs().at(0)->constant()), std::vector<float>(1000, 7));
}

TEST_F(FoldConstants, MaxBytesNeverBlocksAFoldThatShrinks) {
  std::vector<float> ones(1000, 1.0f);
  Value *c = g.addConstant("c", f32({1000}, ones));
  Node *sum = g.createNode(op("aten::sum.default"), {Argument::value(c)}, DType::Float32, {});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(sum->output()), ""});

  EXPECT_TRUE(fold({{"max_bytes", int64_t{0}}}));
  EXPECT_EQ(valuesOf(*g.userOutputs().at(0)->constant()), std::vector<float>{1000});
}

TEST_F(FoldConstants, OpsOptionRestrictsWhatFolds) {
  Value *c = g.addConstant("c", f32({2}, {-1, 4}));
  Node *neg = g.createNode(op("aten::neg.default"), {Argument::value(c)}, DType::Float32, {2});
  Node *relu = g.createNode(op("aten::relu.default"), {Argument::value(neg->output())}, DType::Float32, {2});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(relu->output()), ""});

  EXPECT_FALSE(fold({{"ops", std::vector<std::string>{"aten::relu.default"}}}));
  EXPECT_TRUE(fold({{"ops", std::vector<std::string>{"aten.neg.default"}}}));
  EXPECT_EQ(count("aten::neg.default"), 0u);
  EXPECT_EQ(count("aten::relu.default"), 1u);
  EXPECT_THROW(fold({{"ops", std::vector<std::string>{"not an op"}}}), Error);
}

TEST_F(FoldConstants, RandomAndStatefulInputsAreNotFolded) {
  Value *c = g.addConstant("c", f32({4}, {1, 2, 3, 4}));
  Node *drop = g.createNode(op("aten::dropout.default"),
                            {Argument::value(c), Argument::real(0.5), Argument::boolean(true)}, DType::Float32, {4});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(drop->output()), ""});

  // A buffer the program writes back: its initial contents are not what later calls read.
  Value *state = g.addInput(InputKind::Buffer, "state", DType::Float32, {4}, "state", f32({4}, {0, 0, 0, 0}));
  Node *next = g.createNode(op("aten::add.Tensor"), {Argument::value(state), Argument::value(c)}, DType::Float32, {4});
  g.addOutput(GraphOutput{OutputKind::BufferMutation, Argument::value(next->output()), "state"});
  Node *read = g.createNode(op("aten::mul.Tensor"), {Argument::value(state), Argument::value(c)}, DType::Float32, {4});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(read->output()), ""});

  EXPECT_FALSE(fold());
  EXPECT_EQ(g.numNodes(), 3u);
}

TEST_F(FoldConstants, ResultsDisagreeingWithTheGraphAreNotFolded) {
  Value *c = g.addConstant("c", f32({2}, {1, 2}));
  // The graph claims the sum is i64; LibTorch computes f32. Folding would retype the program.
  Node *sum = g.createNode(op("aten::sum.default"), {Argument::value(c)}, DType::Int64, {});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(sum->output()), ""});
  EXPECT_FALSE(fold());
  EXPECT_EQ(count("aten::sum.default"), 1u);
}

TEST_F(FoldConstants, OptionsAreDeclared) {
  const Registered<PassSpec> *spec = atenEval()->registry.findPass("fold-constants");
  ASSERT_NE(spec, nullptr);
  EXPECT_THROW(Options::resolve("fold-constants", spec->spec.options, {{"max_byte", int64_t{1}}}), Error);
  Options defaults = Options::resolve("fold-constants", spec->spec.options, {});
  EXPECT_EQ(defaults.getInt("max_bytes"), int64_t{256} << 20);
  EXPECT_TRUE(defaults.getStringList("ops").empty());
}

} // namespace
} // namespace tico
