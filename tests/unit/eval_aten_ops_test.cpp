// The "aten" evaluator on single nodes. Expected values are computed by hand (or, where
// noted, were printed once by PyTorch 2.13 in Python and recorded here).
#include "pt2/torch_op_table.h"
#include "eval_test_support.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

namespace tico {
namespace {

using namespace evaltest;

void expectNear(const std::vector<float> &actual, const std::vector<float> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1e-5 * std::abs(expected[i])) << "element " << i;
}

Value *input(Graph &g, const std::string &name, DType dtype, Shape shape) {
  return g.addInput(InputKind::User, name, dtype, std::move(shape));
}


class EvalAtenOps : public ::testing::Test {
protected:
  void SetUp() override {
    TICO_REQUIRE_ATEN_EVAL();
  }
  const Evaluator &evaluator() const { return *atenEval()->evaluator; }

  // Evaluates `node`, which must produce a single tensor.
  std::shared_ptr<const TensorData> evalTensor(const Node &node) {
    EXPECT_TRUE(evaluator().canEvaluate(node)) << node.op().str();
    std::vector<EvalValue> out = evaluator().evaluate(node, env);
    EXPECT_EQ(out.size(), 1u);
    EXPECT_TRUE(out.at(0).tensor);
    return out.at(0).tensor;
  }

  Graph g{&tico::pt2::torchOpSchemas()};
  EvalEnv env;
};

TEST_F(EvalAtenOps, AddWithAlpha) {
  Value *a = input(g, "a", DType::Float32, {3});
  Value *b = input(g, "b", DType::Float32, {3});
  env[a] = {f32({3}, {1, 2, 3}), std::nullopt};
  env[b] = {f32({3}, {10, 20, 30}), std::nullopt};
  Node *n = g.createNode(op("aten::add.Tensor"),
                         {NamedArg{"", Argument::value(a)}, NamedArg{"", Argument::value(b)},
                          NamedArg{"alpha", Argument::integer(2)}},
                         {tensorOut(DType::Float32, {3})});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->dtype, DType::Float32);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{3}));
  expectNear(valuesOf<float>(*r), {21, 42, 63});
}

TEST_F(EvalAtenOps, StridedInputViewIsReadThroughItsStrides) {
  // A 2x3 view that is the transpose of a contiguous 3x2 storage [[1,2],[3,4],[5,6]].
  auto storage = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto view = std::make_shared<TensorData>(*storage);
  view->sizes = {2, 3};
  view->strides = {1, 2};
  Value *x = input(g, "x", DType::Float32, {2, 3});
  env[x] = {view, std::nullopt};
  Node *n = g.createNode(op("aten::mul.Scalar"), {Argument::value(x), Argument::real(10)}, DType::Float32, {2, 3});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{2, 3}));
  expectNear(valuesOf<float>(*r), {10, 30, 50, 20, 40, 60});
}

TEST_F(EvalAtenOps, Linear) {
  Value *x = input(g, "x", DType::Float32, {2, 3});
  Value *w = input(g, "w", DType::Float32, {2, 3});
  Value *b = input(g, "b", DType::Float32, {2});
  env[x] = {f32({2, 3}, {1, 2, 3, 4, 5, 6}), std::nullopt};
  env[w] = {f32({2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f}), std::nullopt};
  env[b] = {f32({2}, {0.1f, -0.2f}), std::nullopt};
  Node *n = g.createNode(op("aten::linear.default"), {Argument::value(x), Argument::value(w), Argument::value(b)},
                         DType::Float32, {2, 2});
  // y = x @ w^T + b
  expectNear(valuesOf<float>(*evalTensor(*n)), {1 - 3 + 0.1f, 3 - 0.2f, 4 - 6 + 0.1f, 7.5f - 0.2f});
}

TEST_F(EvalAtenOps, Conv2dWithPadding) {
  Value *x = input(g, "x", DType::Float32, {1, 1, 3, 3});
  Value *w = input(g, "w", DType::Float32, {1, 1, 2, 2});
  Value *b = input(g, "b", DType::Float32, {1});
  env[x] = {f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), std::nullopt};
  env[w] = {f32({1, 1, 2, 2}, {1, 2, 3, 4}), std::nullopt};
  env[b] = {f32({1}, {0.5f}), std::nullopt};
  Node *n = g.createNode(op("aten::conv2d.default"),
                         {NamedArg{"", Argument::value(x)}, NamedArg{"", Argument::value(w)},
                          NamedArg{"", Argument::value(b)}, NamedArg{"padding", Argument::ints({1, 1})}},
                         {tensorOut(DType::Float32, {1, 1, 4, 4})});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{1, 1, 4, 4}));
  // From torch.nn.functional.conv2d(x, w, b, padding=1) in Python; the interior 2x2 is the
  // hand-checkable valid convolution (1*1+2*2+3*4+4*5 + 0.5 = 37.5, ...).
  expectNear(valuesOf<float>(*r), {4.5f, 11.5f, 18.5f, 9.5f, 18.5f, 37.5f, 47.5f, 21.5f, 36.5f, 67.5f, 77.5f,
                                   33.5f, 14.5f, 23.5f, 26.5f, 9.5f});
}

TEST_F(EvalAtenOps, MeanDimKeepdim) {
  Value *x = input(g, "x", DType::Float32, {2, 3});
  env[x] = {f32({2, 3}, {1, 2, 3, 4, 5, 6}), std::nullopt};
  Node *n = g.createNode(op("aten::mean.dim"),
                         {Argument::value(x), Argument::ints({1}), Argument::boolean(true)}, DType::Float32, {2, 1});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{2, 1}));
  expectNear(valuesOf<float>(*r), {2, 5});
}

TEST_F(EvalAtenOps, Softmax) {
  Value *x = input(g, "x", DType::Float32, {2, 3});
  env[x] = {f32({2, 3}, {1, 2, 3, 0, 0, 1}), std::nullopt};
  Node *n = g.createNode(op("aten::_softmax.default"),
                         {Argument::value(x), Argument::integer(1), Argument::boolean(false)}, DType::Float32, {2, 3});
  // e^k / sum: row 0 = (e, e^2, e^3) / (e + e^2 + e^3); row 1 = (1, 1, e) / (2 + e).
  const float e = std::exp(1.0f), s0 = e + e * e + e * e * e, s1 = 2 + e;
  expectNear(valuesOf<float>(*evalTensor(*n)), {e / s0, e * e / s0, e * e * e / s0, 1 / s1, 1 / s1, e / s1});
}

TEST_F(EvalAtenOps, ViewWithSymIntSizeSharesTheInputStorage) {
  Value *x = input(g, "x", DType::Float32, {Dim::symbolic("3*s0", 6)});
  Value *s = g.addSymInput("s", ValueKind::SymInt, "s0", 2);
  auto data = f32({6}, {1, 2, 3, 4, 5, 6});
  env[x] = {data, std::nullopt};
  env[s] = {nullptr, 2.0};
  Node *n = g.createNode(op("aten::view.default"),
                         {Argument::value(x), Argument::symInts({SymIntElem{0, s}, SymIntElem{3, nullptr}})},
                         DType::Float32, {Dim::symbolic("s0", 2), 3});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r->strides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(r->storage, data->storage) << "a view result must point into its input's storage";
  expectNear(valuesOf<float>(*r), {1, 2, 3, 4, 5, 6});
}

TEST_F(EvalAtenOps, CatOfATensorList) {
  Value *a = input(g, "a", DType::Float32, {1, 2});
  Value *b = input(g, "b", DType::Float32, {2, 2});
  env[a] = {f32({1, 2}, {1, 2}), std::nullopt};
  env[b] = {f32({2, 2}, {3, 4, 5, 6}), std::nullopt};
  Node *n = g.createNode(op("aten::cat.default"), {Argument::values({a, b}), Argument::integer(0)}, DType::Float32,
                         {3, 2});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{3, 2}));
  expectNear(valuesOf<float>(*r), {1, 2, 3, 4, 5, 6});
}

TEST_F(EvalAtenOps, EmbeddingWithInt64Indices) {
  Value *w = input(g, "w", DType::Float32, {4, 2});
  Value *idx = input(g, "idx", DType::Int64, {3});
  env[w] = {f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}), std::nullopt};
  env[idx] = {i64({3}, {3, 0, 3}), std::nullopt};
  Node *n = g.createNode(op("aten::embedding.default"), {Argument::value(w), Argument::value(idx)}, DType::Float32,
                         {3, 2});
  expectNear(valuesOf<float>(*evalTensor(*n)), {30, 31, 0, 1, 30, 31});
}

TEST_F(EvalAtenOps, IndexTensorWithOptionalTensorList) {
  Value *x = input(g, "x", DType::Float32, {3, 4});
  Value *idx = input(g, "idx", DType::Int64, {2});
  env[x] = {f32({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}), std::nullopt};
  env[idx] = {i64({2}, {2, 0}), std::nullopt};
  // x[:, idx]
  Node *n = g.createNode(op("aten::index.Tensor"), {Argument::value(x), Argument::optionalValues({nullptr, idx})},
                         DType::Float32, {3, 2});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{3, 2}));
  expectNear(valuesOf<float>(*r), {2, 0, 12, 10, 22, 20});
}

TEST_F(EvalAtenOps, SplitGivesOneValuePerOutput) {
  Value *x = input(g, "x", DType::Float32, {5});
  env[x] = {f32({5}, {1, 2, 3, 4, 5}), std::nullopt};
  Node *n = g.createNode(op("aten::split_with_sizes.default"), {NamedArg{"", Argument::value(x)},
                                                                NamedArg{"", Argument::ints({2, 3})}},
                         {tensorOut(DType::Float32, {2}),
                          tensorOut(DType::Float32, {3})});
  std::vector<EvalValue> out = evaluator().evaluate(*n, env);
  ASSERT_EQ(out.size(), 2u);
  expectNear(valuesOf<float>(*out[0].tensor), {1, 2});
  expectNear(valuesOf<float>(*out[1].tensor), {3, 4, 5});
}

TEST_F(EvalAtenOps, ScalarTypeArgumentConverts) {
  Value *x = input(g, "x", DType::Float32, {3});
  env[x] = {f32({3}, {1.5f, -2.5f, 7}), std::nullopt};
  Node *n = g.createNode(op("aten::_to_copy.default"),
                         {NamedArg{"", Argument::value(x)}, NamedArg{"dtype", Argument::scalarType(DType::Int32)}},
                         {tensorOut(DType::Int32, {3})});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->dtype, DType::Int32);
  EXPECT_EQ(valuesOf<int32_t>(*r), (std::vector<int32_t>{1, -2, 7}));
}

TEST_F(EvalAtenOps, FactoryWithDeviceLayoutAndDType) {
  Node *n = g.createNode(op("aten::full.default"),
                         {NamedArg{"", Argument::ints({2, 2})}, NamedArg{"", Argument::real(1.5)},
                          NamedArg{"dtype", Argument::scalarType(DType::Float64)},
                          NamedArg{"layout", Argument::layout(Layout::Strided)},
                          NamedArg{"device", Argument::device(Device{"cpu", -1})},
                          NamedArg{"pin_memory", Argument::boolean(false)}},
                         {tensorOut(DType::Float64, {2, 2})});
  auto r = evalTensor(*n);
  EXPECT_EQ(r->dtype, DType::Float64);
  EXPECT_EQ(valuesOf<double>(*r), std::vector<double>(4, 1.5));
}

TEST_F(EvalAtenOps, SymSizeAndPythonScalarOps) {
  Value *x = input(g, "x", DType::Float32, {Dim::symbolic("s0", 7), 2});
  env[x] = {f32({7, 2}, std::vector<float>(14, 0)), std::nullopt};
  Node *size = g.createNode(op("aten::sym_size.int"), {NamedArg{"", Argument::value(x)}, NamedArg{"", Argument::integer(0)}},
                            {symIntOut()});
  std::vector<EvalValue> s = evaluator().evaluate(*size, env);
  ASSERT_TRUE(s.at(0).scalar);
  EXPECT_EQ(*s[0].scalar, 7);
  env[size->output()] = s[0];

  auto scalarOp = [&](const std::string &name, std::vector<Argument> args) {
    std::vector<NamedArg> named;
    for (auto &a : args)
      named.push_back(NamedArg{"", std::move(a)});
    Node *n = g.createNode(op(name), std::move(named), {symIntOut()});
    EXPECT_TRUE(evaluator().canEvaluate(*n)) << name;
    return *evaluator().evaluate(*n, env).at(0).scalar;
  };
  Argument s0 = Argument::value(size->output());
  // Python semantics: floor division and modulo round toward negative infinity.
  EXPECT_EQ(scalarOp("_operator.floordiv", {s0, Argument::integer(2)}), 3);
  EXPECT_EQ(scalarOp("_operator.floordiv", {Argument::integer(-7), Argument::integer(2)}), -4);
  EXPECT_EQ(scalarOp("_operator.mod", {Argument::integer(-7), Argument::integer(3)}), 2);
  EXPECT_EQ(scalarOp("_operator.mul", {s0, Argument::integer(3)}), 21);
  EXPECT_EQ(scalarOp("_operator.sub", {s0, Argument::integer(10)}), -3);
  EXPECT_EQ(scalarOp("torch.sym_max", {s0, Argument::integer(9)}), 9);
  EXPECT_EQ(scalarOp("torch.sym_min", {s0, Argument::integer(9)}), 7);
  EXPECT_EQ(scalarOp("math.ceil", {Argument::real(2.25)}), 3);

  Node *div0 = g.createNode(op("_operator.floordiv"), {NamedArg{"", s0}, NamedArg{"", Argument::integer(0)}},
                            {symIntOut()});
  EXPECT_THROW(evaluator().evaluate(*div0, env), Error);
}

TEST_F(EvalAtenOps, RejectsOpsItCannotRun) {
  Value *a = input(g, "a", DType::Float32, {3});
  // Writes its input: evaluating it would modify constants (or fault on mapped weights).
  Node *inplace = g.createNode(op("aten::add_.Tensor"), {Argument::value(a), Argument::value(a)}, DType::Float32, {3});
  EXPECT_FALSE(evaluator().canEvaluate(*inplace));
  // Not a LibTorch op at all.
  Node *custom = g.createNode(op("acme::frobnicate.default"), {Argument::value(a)}, DType::Float32, {3});
  EXPECT_FALSE(evaluator().canEvaluate(*custom));
  // Registered from Python only, and not one of the quantize/dequantize ops the evaluator
  // implements itself (eval_quant_ops_test.cpp), so a C++ process has no kernel for it.
  Node *quant = g.createNode(op("quantized_decomposed::quantize_per_token.default"),
                             {Argument::value(a), Argument::value(a), Argument::value(a), Argument::integer(-128),
                              Argument::integer(127), Argument::scalarType(DType::Int8)},
                             DType::Int8, {3});
  EXPECT_FALSE(evaluator().canEvaluate(*quant));
  env[a] = {f32({3}, {1, 2, 3}), std::nullopt};
  try {
    evaluator().evaluate(*custom, env);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("acme::frobnicate.default"), std::string::npos) << e.what();
  }
}

TEST_F(EvalAtenOps, LibTorchErrorsNameTheNodeAndOp) {
  Value *a = input(g, "a", DType::Float32, {2});
  Value *b = input(g, "b", DType::Float32, {3});
  env[a] = {f32({2}, {1, 2}), std::nullopt};
  env[b] = {f32({3}, {1, 2, 3}), std::nullopt};
  Node *n = g.createNode(op("aten::add.Tensor"), {Argument::value(a), Argument::value(b)}, DType::Float32, {3},
                         nullptr, "bad_add");
  try {
    evaluator().evaluate(*n, env);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'bad_add'"), std::string::npos) << what;
    EXPECT_NE(what.find("aten::add.Tensor"), std::string::npos) << what;
    EXPECT_NE(what.find("size of tensor a (2) must match"), std::string::npos) << what;
  }
}

TEST_F(EvalAtenOps, MissingInputValueIsAnError) {
  Value *a = input(g, "a", DType::Float32, {2});
  Node *n = g.createNode(op("aten::relu.default"), {Argument::value(a)}, DType::Float32, {2});
  EXPECT_THROW(evaluator().evaluate(*n, env), Error);
}

} // namespace
} // namespace tico
