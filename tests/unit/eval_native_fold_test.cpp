// fold-constants' native evaluator against LibTorch: every case is folded twice, once with
// `native: true` (plain C++, LibTorch never needed) and once with `native: false` (everything
// through the LibTorch evaluator), and the two constants must agree — bit for bit, except where
// native_eval.h documents a rounding difference (cos / sin / exp, float matmul), which is bounded
// here in units in the last place.
#include "pt2/torch_op_table.h"
#include "eval_test_support.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace tico {
namespace {

using namespace evaltest;

using Build = std::function<void(Graph &)>;

std::shared_ptr<const TensorData> typed(DType dtype, std::vector<int64_t> sizes, const std::vector<double> &values) {
  std::vector<std::byte> bytes(values.size() * elementSize(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::byte *p = bytes.data() + i * elementSize(dtype);
    auto put = [p](auto v) { std::memcpy(p, &v, sizeof v); };
    switch (dtype) {
    case DType::Float32: put(static_cast<float>(values[i])); break;
    case DType::Float64: put(values[i]); break;
    case DType::Int64: put(static_cast<int64_t>(values[i])); break;
    case DType::Int32: put(static_cast<int32_t>(values[i])); break;
    case DType::Int16: put(static_cast<int16_t>(values[i])); break;
    case DType::Int8: put(static_cast<int8_t>(values[i])); break;
    case DType::UInt8: put(static_cast<uint8_t>(values[i])); break;
    case DType::Bool: put(static_cast<uint8_t>(values[i] != 0)); break;
    default: throw Error("typed: dtype not covered");
    }
  }
  return std::make_shared<TensorData>(TensorData::fromBytes(dtype, std::move(sizes), std::move(bytes)));
}

std::vector<double> randomValues(std::size_t n, double lo, double hi, bool integral, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = integral ? std::floor(dist(rng)) : dist(rng);
  return v;
}

Value *constant(Graph &g, DType dtype, std::vector<int64_t> sizes, double lo, double hi, unsigned seed,
               bool integral_floats = false) {
  std::size_t n = 1;
  for (int64_t s : sizes)
    n *= static_cast<std::size_t>(s);
  const bool integral = !isFloating(dtype) || integral_floats;
  return g.addConstant("c" + std::to_string(g.numNodes()) + "_" + std::to_string(seed),
                       typed(dtype, sizes, randomValues(n, lo, hi, integral, seed)));
}

using Keywords = std::vector<std::pair<std::string, Argument>>;

// The single-op graph: node(args..., keywords...) -> user output.
Build unaryCase(const std::string &op_text, std::function<std::vector<Argument>(Graph &)> args, DType out,
                std::vector<int64_t> out_sizes, Keywords keywords = {}) {
  return [=](Graph &g) {
    std::vector<NamedArg> named;
    for (Argument &a : args(g))
      named.push_back(NamedArg{"", std::move(a)});
    for (const auto &[name, value] : keywords)
      named.push_back(NamedArg{name, value});
    Node *n = g.createNode(op(op_text), std::move(named), {tensorOut(out, staticShape(out_sizes))});
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(n->output()), ""});
  };
}

class NativeFold : public ::testing::Test {
protected:
  void SetUp() override { TICO_REQUIRE_ATEN_EVAL(); }

  std::shared_ptr<const TensorData> folded(const Build &build, bool native) {
    Graph g{&tico::pt2::torchOpSchemas()};
    build(g);
    const Registered<PassSpec> *spec = atenEval()->registry.findPass("fold-constants");
    auto pass = spec->spec.create(Options::resolve("fold-constants", spec->spec.options, {{"native", native}}));
    PassContext context(atenEval()->registry);
    pass->run(g, context);
    g.verify();
    const Value *out = g.userOutputs().at(0);
    EXPECT_TRUE(out->isConstant()) << (native ? "native" : "LibTorch") << " did not fold";
    return out->isConstant() ? out->constant() : nullptr;
  }

  // Folds `build` both ways; float results may differ by `max_ulps`, or by `max_abs` when given.
  void expectSame(const std::string &what, const Build &build, int64_t max_ulps = 0, float max_abs = 0) {
    SCOPED_TRACE(what);
    const auto native = folded(build, true), torch = folded(build, false);
    ASSERT_TRUE(native && torch);
    ASSERT_EQ(native->dtype, torch->dtype);
    ASSERT_EQ(native->sizes, torch->sizes);
    const std::vector<std::byte> a = native->contiguousBytes(), b = torch->contiguousBytes();
    ASSERT_EQ(a.size(), b.size());
    if (max_abs > 0) {
      const std::vector<float> x = valuesOf<float>(*native), y = valuesOf<float>(*torch);
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(x[i], y[i], max_abs) << "element " << i;
      return;
    }
    if (max_ulps == 0 || native->dtype != DType::Float32) {
      EXPECT_EQ(a, b);
      return;
    }
    const std::vector<int32_t> x = valuesOf<int32_t>(*native), y = valuesOf<int32_t>(*torch);
    int64_t worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      worst = std::max<int64_t>(worst, std::llabs(static_cast<int64_t>(x[i]) - y[i]));
    EXPECT_LE(worst, max_ulps);
  }
};

Argument v(Value *value) { return Argument::value(value); }

TEST_F(NativeFold, ArangeMatchesLibTorch) {
  expectSame("arange(10) i64", unaryCase("aten::arange.default", [](Graph &) { return std::vector{Argument::integer(10)}; },
                                         DType::Int64, {10}));
  expectSame("arange(2, 11) i64", unaryCase("aten::arange.start", [](Graph &) {
    return std::vector{Argument::integer(2), Argument::integer(11)}; }, DType::Int64, {9}));
  expectSame("arange(0, 64, 2, f32)", unaryCase("aten::arange.start_step", [](Graph &) {
    return std::vector{Argument::integer(0), Argument::integer(64), Argument::integer(2)};
  }, DType::Float32, {32}, {{"dtype", Argument::scalarType(DType::Float32)}}));
  expectSame("arange(-3, 30, 3) f64", unaryCase("aten::arange.start_step", [](Graph &) {
    return std::vector{Argument::integer(-3), Argument::integer(30), Argument::integer(3)};
  }, DType::Float64, {11}, {{"dtype", Argument::scalarType(DType::Float64)}}));
  // Fractional ranges stay LibTorch's (see native_eval.h); the fold must still agree.
  expectSame("arange(0.0, 1.0, 0.1) f32", unaryCase("aten::arange.start_step", [](Graph &) {
    return std::vector{Argument::real(0.0), Argument::real(1.0), Argument::real(0.1)}; }, DType::Float32, {10}));
  expectSame("arange(-3.5, 3, 0.7) f64", unaryCase("aten::arange.start_step", [](Graph &) {
    return std::vector{Argument::real(-3.5), Argument::integer(3), Argument::real(0.7)};
  }, DType::Float64, {10}, {{"dtype", Argument::scalarType(DType::Float64)}}));
}

TEST_F(NativeFold, ArithmeticAndPromotionMatchLibTorch) {
  expectSame("f32 [2,3] + [3]", unaryCase("aten::add.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {2, 3}, -5, 5, 1)), v(constant(g, DType::Float32, {3}, -5, 5, 2))};
  }, DType::Float32, {2, 3}));
  expectSame("i64 + 3 * i64", unaryCase("aten::add.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {4}, -100, 100, 3)), v(constant(g, DType::Int64, {4}, -100, 100, 4))};
  }, DType::Int64, {4}, {{"alpha", Argument::integer(3)}}));
  expectSame("i32 [4] + i64 zero-dim stays i32", unaryCase("aten::add.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int32, {4}, -100, 100, 5)), v(constant(g, DType::Int64, {}, -100, 100, 6))};
  }, DType::Int32, {4}));
  expectSame("i64 - 7 (Scalar)", unaryCase("aten::sub.Scalar", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {3, 2}, -100, 100, 7)), Argument::integer(7)};
  }, DType::Int64, {3, 2}));
  expectSame("f32 * 0.1 (Scalar)", unaryCase("aten::mul.Scalar", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {6}, -5, 5, 8)), Argument::real(0.1)};
  }, DType::Float32, {6}));
  expectSame("i64 * 0.5 -> f32", unaryCase("aten::mul.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {5}, -100, 100, 9)), Argument::real(0.5)};
  }, DType::Float32, {5}));
  expectSame("f32 / f32", unaryCase("aten::div.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {8}, -5, 5, 10)), v(constant(g, DType::Float32, {8}, 1, 5, 11))};
  }, DType::Float32, {8}));
  expectSame("i64 / i64 -> f32", unaryCase("aten::div.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {8}, -50, 50, 12)), v(constant(g, DType::Int64, {8}, 1, 9, 13))};
  }, DType::Float32, {8}));
  expectSame("u8 + 300 wraps", unaryCase("aten::add.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::UInt8, {4}, 0, 255, 14)), Argument::integer(300)};
  }, DType::UInt8, {4}));
  expectSame("neg f32", unaryCase("aten::neg.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {5}, -5, 5, 15))};
  }, DType::Float32, {5}));
  expectSame("neg i64", unaryCase("aten::neg.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {5}, -5, 5, 16))};
  }, DType::Int64, {5}));
}

TEST_F(NativeFold, ComparisonsAndLogicMatchLibTorch) {
  const std::pair<const char *, const char *> ops[] = {{"eq", "Tensor"}, {"ne", "Tensor"}, {"lt", "Tensor"},
                                                       {"le", "Tensor"}, {"gt", "Tensor"}, {"ge", "Tensor"}};
  for (const auto &[name, overload] : ops) {
    const std::string text = std::string("aten::") + name + "." + overload;
    expectSame(text + " i64 broadcast", unaryCase(text, [](Graph &g) {
      return std::vector{v(constant(g, DType::Int64, {3, 1}, -3, 3, 20)), v(constant(g, DType::Int64, {4}, -3, 3, 21))};
    }, DType::Bool, {3, 4}));
    const std::string scalar = std::string("aten::") + name + ".Scalar";
    expectSame(scalar + " f32 vs 0.1", unaryCase(scalar, [](Graph &g) {
      return std::vector{v(g.addConstant("x", typed(DType::Float32, {4}, {0.1, 0.2, -0.1, 0.100000001}))),
                         Argument::real(0.1)};
    }, DType::Bool, {4}));
    expectSame(scalar + " i64 vs 2.5", unaryCase(scalar, [](Graph &g) {
      return std::vector{v(constant(g, DType::Int64, {6}, 0, 6, 22)), Argument::real(2.5)};
    }, DType::Bool, {6}));
  }
  expectSame("bool & bool", unaryCase("aten::__and__.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Bool, {2, 3}, 0, 2, 23)), v(constant(g, DType::Bool, {3}, 0, 2, 24))};
  }, DType::Bool, {2, 3}));
  expectSame("i64 | i64", unaryCase("aten::bitwise_or.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {5}, 0, 64, 25)), v(constant(g, DType::Int64, {5}, 0, 64, 26))};
  }, DType::Int64, {5}));
  expectSame("~i32", unaryCase("aten::bitwise_not.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int32, {5}, -64, 64, 27))};
  }, DType::Int32, {5}));
  expectSame("logical_not bool", unaryCase("aten::logical_not.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Bool, {5}, 0, 2, 28))};
  }, DType::Bool, {5}));
  expectSame("where(bool, f32, f32)", unaryCase("aten::where.self", [](Graph &g) {
    return std::vector{v(constant(g, DType::Bool, {2, 1}, 0, 2, 29)), v(constant(g, DType::Float32, {3}, -5, 5, 30)),
                       v(constant(g, DType::Float32, {2, 3}, -5, 5, 31))};
  }, DType::Float32, {2, 3}));
}

TEST_F(NativeFold, CastsAndFillsMatchLibTorch) {
  expectSame("f32 -> i64 truncates", unaryCase("aten::_to_copy.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {8}, -9, 9, 40))};
  }, DType::Int64, {8}, {{"dtype", Argument::scalarType(DType::Int64)}}));
  expectSame("i64 -> f32", unaryCase("aten::_to_copy.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {8}, -1e9, 1e9, 41))};
  }, DType::Float32, {8}, {{"dtype", Argument::scalarType(DType::Float32)}}));
  expectSame("f32 -> bool", unaryCase("aten::to.dtype", [](Graph &g) {
    return std::vector{v(g.addConstant("x", typed(DType::Float32, {4}, {0.0, -0.0, 0.5, -2}))),
                       Argument::scalarType(DType::Bool)};
  }, DType::Bool, {4}));
  expectSame("bool -> f32", unaryCase("aten::_to_copy.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Bool, {4}, 0, 2, 42))};
  }, DType::Float32, {4}, {{"dtype", Argument::scalarType(DType::Float32)}}));
  expectSame("new_ones", unaryCase("aten::new_ones.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {2}, 0, 1, 43)), Argument::ints({2, 3})};
  }, DType::Bool, {2, 3}, {{"dtype", Argument::scalarType(DType::Bool)}}));
  expectSame("full 3.5", unaryCase("aten::full.default", [](Graph &) {
    return std::vector{Argument::ints({2, 2}), Argument::real(3.5)};
  }, DType::Float32, {2, 2}));
}

TEST_F(NativeFold, LayoutOpsMatchLibTorch) {
  auto base = [](Graph &g) { return constant(g, DType::Float32, {2, 3, 4}, -5, 5, 50); };
  expectSame("reshape", unaryCase("aten::reshape.default", [=](Graph &g) {
    return std::vector{v(base(g)), Argument::ints({6, 4})}; }, DType::Float32, {6, 4}));
  expectSame("permute", unaryCase("aten::permute.default", [=](Graph &g) {
    return std::vector{v(base(g)), Argument::ints({2, 0, 1})}; }, DType::Float32, {4, 2, 3}));
  expectSame("transpose(-1, 0)", unaryCase("aten::transpose.int", [=](Graph &g) {
    return std::vector{v(base(g)), Argument::integer(-1), Argument::integer(0)}; }, DType::Float32, {4, 3, 2}));
  expectSame("slice(-3::2) of dim 2", unaryCase("aten::slice.Tensor", [=](Graph &g) {
    return std::vector{v(base(g)), Argument::integer(2), Argument::integer(-3), Argument::integer(INT64_MAX),
                       Argument::integer(2)}; }, DType::Float32, {2, 3, 2}));
  expectSame("select(1, -1)", unaryCase("aten::select.int", [=](Graph &g) {
    return std::vector{v(base(g)), Argument::integer(1), Argument::integer(-1)}; }, DType::Float32, {2, 4}));
  expectSame("expand [1,3] -> [4,3]", unaryCase("aten::expand.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {1, 3}, -5, 5, 51)), Argument::ints({4, -1})}; }, DType::Int64, {4, 3}));
  expectSame("cat i32 and i64 on dim 1", unaryCase("aten::cat.default", [](Graph &g) {
    return std::vector{Argument::values({constant(g, DType::Int32, {2, 3}, -5, 5, 52), constant(g, DType::Int64, {2, 2}, -5, 5, 53)}),
                       Argument::integer(1)}; }, DType::Int64, {2, 5}));
  expectSame("index [5,4] by [3]", unaryCase("aten::index.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {5, 4}, -5, 5, 54)),
                       Argument::optionalValues({g.addConstant("i", i64({3}, {4, -1, 0}))})}; }, DType::Float32, {3, 4}));
  expectSame("index [5,4,2] by [2,1] and [3]", unaryCase("aten::index.Tensor", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {5, 4, 2}, -5, 5, 55)),
                       Argument::optionalValues({g.addConstant("i", i64({2, 1}, {1, 3})), g.addConstant("j", i64({3}, {0, 3, -2}))})};
  }, DType::Float32, {2, 3, 2}));
}

TEST_F(NativeFold, MatmulIsExactOnIntegersAndWithinAnUlpOnFloats) {
  expectSame("i64 [2,3] @ [3,4]", unaryCase("aten::matmul.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {2, 3}, -9, 9, 60)), v(constant(g, DType::Int64, {3, 4}, -9, 9, 61))};
  }, DType::Int64, {2, 4}));
  // The cumsum decomposition's product: 0/1 values, exact in any summation order.
  expectSame("f32 0/1 [1,8,8] @ [8,8]", unaryCase("aten::matmul.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Float32, {1, 8, 8}, 0, 2, 62, true)), v(constant(g, DType::Float32, {8, 8}, 0, 2, 63, true))};
  }, DType::Float32, {1, 8, 8}));
  // Random floats in [-1, 1): the native product is rounded once from a double sum, BLAS per
  // partial sum; 8 terms of magnitude <= 1 bound the difference by 8 * 2^-24 each way.
  for (unsigned seed = 0; seed < 3; ++seed)
    expectSame("f32 [8] @ [8,3]", unaryCase("aten::matmul.default", [seed](Graph &g) {
      return std::vector{v(constant(g, DType::Float32, {8}, -1, 1, 64 + seed)), v(constant(g, DType::Float32, {8, 3}, -1, 1, 70 + seed))};
    }, DType::Float32, {3}), 0, 1e-6f);
}

TEST_F(NativeFold, TranscendentalsAreWithinOneUlpOfLibTorch) {
  for (const char *name : {"aten::cos.default", "aten::sin.default", "aten::exp.default"})
    expectSame(name, unaryCase(name, [](Graph &g) {
      return std::vector{v(constant(g, DType::Float32, {4096}, -10, 10, 80))};
    }, DType::Float32, {4096}), 1);
  // The rotary table's argument: positions times inverse frequencies.
  expectSame("cos of i64 -> f32", unaryCase("aten::cos.default", [](Graph &g) {
    return std::vector{v(constant(g, DType::Int64, {64}, 0, 2048, 81))};
  }, DType::Float32, {64}), 1);
}

TEST_F(NativeFold, ViewsShareTheFoldedStorage) {
  // arange -> reshape: the reshape's constant is a view of the arange's data, as in PyTorch.
  Graph g{&tico::pt2::torchOpSchemas()};
  Node *range = g.createNode(op("aten::arange.default"), {Argument::integer(6)}, DType::Int64, staticShape({6}));
  Node *view = g.createNode(op("aten::reshape.default"), {Argument::value(range->output()), Argument::ints({2, 3})},
                            DType::Int64, staticShape({2, 3}));
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(range->output()), ""});
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(view->output()), ""});
  const Registered<PassSpec> *spec = atenEval()->registry.findPass("fold-constants");
  auto pass = spec->spec.create(Options::resolve("fold-constants", spec->spec.options, {}));
  PassContext context(atenEval()->registry);
  EXPECT_TRUE(pass->run(g, context));
  const std::vector<Value *> outs = g.userOutputs();
  ASSERT_TRUE(outs[0]->isConstant() && outs[1]->isConstant());
  EXPECT_EQ(outs[0]->constant()->storage, outs[1]->constant()->storage);
  EXPECT_EQ(valuesOf<int64_t>(*outs[1]->constant()), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST_F(NativeFold, OutOfRangeIndexKeepsTheNode) {
  Graph g{&tico::pt2::torchOpSchemas()};
  Value *self = g.addConstant("x", f32({3}, {1, 2, 3}));
  Node *n = g.createNode(op("aten::index.Tensor"),
                         {Argument::value(self), Argument::optionalValues({g.addConstant("i", i64({1}, {3}))})},
                         DType::Float32, staticShape({1}));
  g.addOutput(GraphOutput{OutputKind::User, Argument::value(n->output()), ""});
  const Registered<PassSpec> *spec = atenEval()->registry.findPass("fold-constants");
  auto pass = spec->spec.create(Options::resolve("fold-constants", spec->spec.options, {}));
  PassContext context(atenEval()->registry);
  EXPECT_FALSE(pass->run(g, context));
  EXPECT_EQ(g.numNodes(), 1u);
}

} // namespace
} // namespace tico
