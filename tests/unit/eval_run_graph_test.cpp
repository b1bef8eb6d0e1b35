// runGraph with the "aten" evaluator: a small dynamic-shape graph against hand-computed
// results, and the input checks.
#include "pt2/torch_op_table.h"
#include "eval_test_support.h"
#include "tico/support/error.h"
#include "error_text.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

namespace tico {
namespace {

using namespace evaltest;


using testing_support::errorOf;

class RunGraph : public ::testing::Test {
protected:
  void SetUp() override {
    TICO_REQUIRE_ATEN_EVAL();
  }
  std::vector<EvalValue> run(const std::vector<std::shared_ptr<const TensorData>> &inputs) {
    return runGraph(g, *atenEval()->evaluator, inputs);
  }

  // relu(view(linear(x, W, b), [sym_size(x, 0) * 2])) with x: f32[s0, 2], and a constant 5
  // as a second output.
  void buildLinearGraph() {
    Value *x = g.addInput(InputKind::User, "x", DType::Float32, {Dim::symbolic("s0", 3), 2});
    Value *w = g.addInput(InputKind::Parameter, "w", DType::Float32, {2, 2}, "fc.weight", f32({2, 2}, {1, 2, 3, 4}));
    Value *b = g.addInput(InputKind::Parameter, "b", DType::Float32, {2}, "fc.bias", f32({2}, {1, -1}));
    Node *y = g.createNode(op("aten::linear.default"), {Argument::value(x), Argument::value(w), Argument::value(b)},
                           DType::Float32, {Dim::symbolic("s0", 3), 2});
    Node *n = g.createNode(op("aten::sym_size.int"), {NamedArg{"", Argument::value(x)}, NamedArg{"", Argument::integer(0)}},
                           {symIntOut()});
    n->output()->setSym("s0", 3);
    Node *m = g.createNode(op("_operator.mul"), {NamedArg{"", Argument::value(n->output())}, NamedArg{"", Argument::integer(2)}},
                           {symIntOut()});
    m->output()->setSym("2*s0", 6);
    Node *z = g.createNode(op("aten::view.default"),
                           {Argument::value(y->output()), Argument::symInts({SymIntElem{0, m->output()}})},
                           DType::Float32, {Dim::symbolic("2*s0", 6)});
    Node *r = g.createNode(op("aten::relu.default"), {Argument::value(z->output())}, DType::Float32,
                           {Dim::symbolic("2*s0", 6)});
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(r->output()), ""});
    g.addOutput(GraphOutput{OutputKind::User, Argument::integer(5), ""});
    g.symbols()["s0"] = SymbolRange{2, 64};
  }

  Graph g{&tico::pt2::torchOpSchemas()};
};

TEST_F(RunGraph, DynamicLinearGraphMatchesHandComputation) {
  buildLinearGraph();
  g.verify();
  // x @ W^T + b, row by row: [1,0] -> [1,3]+[1,-1] = [2,2]; [0,1] -> [2,4]+b = [3,3];
  // [-1,-1] -> [-3,-7]+b = [-2,-8]; relu clamps the last row.
  std::vector<EvalValue> out = run({f32({3, 2}, {1, 0, 0, 1, -1, -1})});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_TRUE(out[0].tensor);
  EXPECT_EQ(out[0].tensor->sizes, (std::vector<int64_t>{6}));
  EXPECT_EQ(valuesOf(*out[0].tensor), (std::vector<float>{2, 2, 3, 3, 0, 0}));
  ASSERT_TRUE(out[1].scalar);
  EXPECT_EQ(*out[1].scalar, 5);

  // Another size binds s0 afresh.
  out = run({f32({2, 2}, {1, 1, 0, 0})});
  EXPECT_EQ(valuesOf(*out[0].tensor), (std::vector<float>{4, 6, 1, 0}));
}

TEST_F(RunGraph, InputsAreChecked) {
  buildLinearGraph();
  EXPECT_NE(errorOf([&] { run({}); }).find("takes 1 user inputs (x), got 0"), std::string::npos);
  auto i64 = std::make_shared<TensorData>(TensorData::fromVector(DType::Int64, {3, 2}, std::vector<int64_t>(6, 0)));
  EXPECT_NE(errorOf([&] { run({i64}); }).find("input 0 ('x'): expected f32, got i64"), std::string::npos);
  EXPECT_NE(errorOf([&] { run({f32({6}, std::vector<float>(6, 0))}); }).find("expected rank 2"), std::string::npos);
  EXPECT_NE(errorOf([&] { run({f32({3, 3}, std::vector<float>(9, 0))}); }).find("dimension 1 is 3, expected 2"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { run({f32({1, 2}, {0, 0})}); }).find("outside the range"), std::string::npos);
}

TEST_F(RunGraph, ASymbolMustAgreeAcrossInputs) {
  Value *a = g.addInput(InputKind::User, "a", DType::Float32, {Dim::symbolic("s0", 2)});
  Value *b = g.addInput(InputKind::User, "b", DType::Float32, {Dim::symbolic("s0", 2)});
  Node *add = g.createNode(op("aten::add.Tensor"), {Argument::value(a), Argument::value(b)}, DType::Float32,
                           {Dim::symbolic("s0", 2)});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(add->output()), ""});

  std::string error = errorOf([&] { run({f32({2}, {1, 2}), f32({3}, {1, 2, 3})}); });
  EXPECT_NE(error.find("input 1 ('b') dimension 0 is 3"), std::string::npos) << error;
  EXPECT_NE(error.find("s0 = 2 from input 0 ('a') dimension 0"), std::string::npos) << error;

  std::vector<EvalValue> out = run({f32({2}, {1, 2}), f32({2}, {10, 20})});
  EXPECT_EQ(valuesOf(*out.at(0).tensor), (std::vector<float>{11, 22}));
}

TEST_F(RunGraph, SymIntUserInputBindsItsSymbol) {
  Value *x = g.addInput(InputKind::User, "x", DType::Float32, {Dim::symbolic("s0", 3)});
  Value *n = g.addSymInput("n", ValueKind::SymInt, "s0", 3);
  Node *add = g.createNode(op("aten::add.Scalar"), {Argument::value(x), Argument::value(n)}, DType::Float32,
                           {Dim::symbolic("s0", 3)});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(add->output()), ""});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(n), ""});

  auto scalar = [](int64_t v) {
    return std::make_shared<TensorData>(TensorData::fromVector(DType::Int64, {}, std::vector<int64_t>{v}));
  };
  std::vector<EvalValue> out = run({f32({3}, {1, 2, 3}), scalar(3)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf(*out[0].tensor), (std::vector<float>{4, 5, 6}));
  ASSERT_TRUE(out[1].scalar);
  EXPECT_EQ(*out[1].scalar, 3);

  std::string error = errorOf([&] { run({f32({3}, {1, 2, 3}), scalar(4)}); });
  EXPECT_NE(error.find("input 1 ('n') is 4 but the graph says s0 = 3"), std::string::npos) << error;
}

TEST_F(RunGraph, FailingNodeIsNamed) {
  Value *a = g.addInput(InputKind::User, "a", DType::Float32, {2, 3});
  Node *bad = g.createNode(op("aten::view.default"), {Argument::value(a), Argument::ints({4})}, DType::Float32, {4},
                           nullptr, "bad_view");
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(bad->output()), ""});
  std::string error = errorOf([&] { run({f32({2, 3}, std::vector<float>(6, 0))}); });
  EXPECT_NE(error.find("'bad_view'"), std::string::npos) << error;
  EXPECT_NE(error.find("aten::view.default"), std::string::npos) << error;
}

TEST_F(RunGraph, ResultsDisagreeingWithTheGraphAreReported) {
  Value *a = g.addInput(InputKind::User, "a", DType::Float32, {2});
  // The graph claims the sum is i64; LibTorch computes f32.
  Node *sum = g.createNode(op("aten::sum.default"), {Argument::value(a)}, DType::Int64, {});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(sum->output()), ""});
  std::string error = errorOf([&] { run({f32({2}, {1, 2})}); });
  EXPECT_NE(error.find("is f32[] but the graph records i64[]"), std::string::npos) << error;
}

} // namespace
} // namespace tico
