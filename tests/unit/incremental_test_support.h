// Shared by the incremental-strategies tests (incremental_test.cpp, incremental_runtime_test.cpp):
// a registry with the built-in runtime and the incremental plugin loaded, operator options, and
// the two-towers model both suites package.
#pragma once

#include "interp_test_support.h"

#include "tico/plugin/loader.h"
#include "tico/plugin/registry.h"

namespace tico::test {

inline const Registry &incrementalRegistry() {
  struct Loaded {
    Registry registry;
    PluginSet plugins;
  };
  static Loaded *loaded = [] {
    auto *p = new Loaded();
    p->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-builtin-runtime.so", p->registry);
    p->plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-incremental.so", p->registry);
    // test-elementwise: runs subgraph 0 only (ADD, MUL, NEG), so region callables fail on it.
    p->plugins.load(std::string(TICO_TEST_PLUGIN_DIR) + "/libtico-test-runtime.so", p->registry);
    return p;
  }();
  return loaded->registry;
}

inline circle::BuiltinOptionsUnion fc() {
  circle::FullyConnectedOptionsT o;
  return ModelBuilder::options(o);
}
inline circle::BuiltinOptionsUnion add() {
  circle::AddOptionsT o;
  return ModelBuilder::options(o);
}
inline circle::BuiltinOptionsUnion mul() {
  circle::MulOptionsT o;
  return ModelBuilder::options(o);
}

// Two towers and a tail: a = FC(x, W), b = FC(y, V), c = (a + b) * exp(k) where exp(k) is
// computed from a constant only; outputs c and a.
struct TwoTowers {
  ModelBuilder b;
  int32_t x, y, a, b_out, c, k_exp, sum;
  explicit TwoTowers(bool same_weights = false) {
    x = b.input("x", DType::Float32, {1, 4});
    y = b.input("y", DType::Float32, {1, 4});
    const int32_t w = b.constant("W", f32({4, 4}, randomFloats(16, 1)));
    const int32_t v = same_weights ? w : b.constant("V", f32({4, 4}, randomFloats(16, 2)));
    const int32_t k = b.constant("k", f32({1}, {0.5f}));
    a = b.tensor("a", DType::Float32, {1, 4});
    b_out = b.tensor("b", DType::Float32, {1, 4});
    k_exp = b.tensor("k_exp", DType::Float32, {1});
    sum = b.tensor("sum", DType::Float32, {1, 4});
    c = b.tensor("c", DType::Float32, {1, 4});
    b.op(circle::BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {a}, fc());
    b.op(circle::BuiltinOperator::FULLY_CONNECTED, {y, v, -1}, {b_out}, fc());
    b.op(circle::BuiltinOperator::EXP, {k}, {k_exp});
    b.op(circle::BuiltinOperator::ADD, {a, b_out}, {sum}, add());
    b.op(circle::BuiltinOperator::MUL, {sum, k_exp}, {c}, mul());
    b.output(c);
    b.output(a);
  }
};

} // namespace tico::test
