// Shared helpers of the interpreter tests: a small builder for Circle models in C++, tensor
// constructors, and comparisons. Reference values in the tests come from hand computation,
// from PyTorch/NumPy (recorded as literals, with the expression that produced them), or from a
// plain reference loop written in the test itself; never from the interpreter.
#pragma once

#include "tico/circle/model.h"
#include "tico/interpreter/interpreter.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace tico::test {

using TensorPtr = std::shared_ptr<const TensorData>;

template <typename T> TensorPtr tensorOf(DType dtype, std::vector<int64_t> shape, const std::vector<T> &values) {
  return std::make_shared<TensorData>(TensorData::fromVector(dtype, std::move(shape), values));
}
inline TensorPtr f32(std::vector<int64_t> shape, const std::vector<float> &values) {
  return tensorOf(DType::Float32, std::move(shape), values);
}
inline TensorPtr i32(std::vector<int64_t> shape, const std::vector<int32_t> &values) {
  return tensorOf(DType::Int32, std::move(shape), values);
}
inline TensorPtr i64(std::vector<int64_t> shape, const std::vector<int64_t> &values) {
  return tensorOf(DType::Int64, std::move(shape), values);
}
inline TensorPtr boolean(std::vector<int64_t> shape, const std::vector<uint8_t> &values) {
  return tensorOf(DType::Bool, std::move(shape), values);
}

template <typename T> std::vector<T> valuesOf(const TensorData &t) {
  std::vector<std::byte> bytes = t.contiguousBytes();
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!bytes.empty())
    std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Deterministic pseudo-random floats in [-1, 1) (a linear congruential generator, so the
// values are the same on every platform).
inline std::vector<float> randomFloats(std::size_t count, uint32_t seed) {
  std::vector<float> out(count);
  uint32_t state = seed * 2654435761u + 1u;
  for (auto &v : out) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return out;
}

inline void expectShape(const TensorData &t, const std::vector<int64_t> &shape) { EXPECT_EQ(t.sizes, shape); }

inline void expectFloats(const TensorData &t, const std::vector<float> &expected, float tolerance = 1e-5f,
                         const std::string &what = "") {
  ASSERT_EQ(t.dtype, DType::Float32) << what;
  const std::vector<float> got = valuesOf<float>(t);
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i << ": " << got[i];
      continue;
    }
    if (std::isinf(expected[i])) { // infinities compare exactly (a tolerance around inf is NaN)
      EXPECT_EQ(got[i], expected[i]) << what << " element " << i;
      continue;
    }
    const float bound = tolerance * (1.0f + std::fabs(expected[i]));
    EXPECT_NEAR(got[i], expected[i], bound) << what << " element " << i;
  }
}

template <typename T> void expectValues(const TensorData &t, DType dtype, const std::vector<T> &expected) {
  ASSERT_EQ(t.dtype, dtype);
  EXPECT_EQ(valuesOf<T>(t), expected);
}

// The message of the tico::Error `f` throws (fails the test when it throws nothing).
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a tico::Error";
  return "";
}

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Builds Circle models operator by operator. Subgraph 0 is created up front; `subgraph(i)`
// selects (creating as needed) the one later calls add to.
class ModelBuilder {
public:
  ModelBuilder() { model_.subgraphs.emplace_back().name = "main"; }

  ModelBuilder &subgraph(std::size_t index) {
    while (model_.subgraphs.size() <= index)
      model_.subgraphs.emplace_back().name = "subgraph" + std::to_string(model_.subgraphs.size());
    current_ = index;
    return *this;
  }

  // A tensor without data; `signature` (with -1 for dynamic dims) only when some dim is dynamic.
  int32_t tensor(const std::string &name, DType dtype, std::vector<int32_t> shape,
                 std::vector<int32_t> signature = {}) {
    CircleTensor t;
    t.name = name;
    t.type = toCircleType(dtype);
    t.shape = std::move(shape);
    t.shape_signature = std::move(signature);
    graph().tensors.push_back(std::move(t));
    return static_cast<int32_t>(graph().tensors.size() - 1);
  }

  int32_t input(const std::string &name, DType dtype, std::vector<int32_t> shape, std::vector<int32_t> signature = {}) {
    const int32_t t = tensor(name, dtype, std::move(shape), std::move(signature));
    graph().inputs.push_back(t);
    return t;
  }

  int32_t constant(const std::string &name, const TensorPtr &data) {
    std::vector<int32_t> shape(data->sizes.begin(), data->sizes.end());
    const int32_t t = tensor(name, data->dtype, shape);
    graph().tensors.back().buffer = model_.addBuffer(data);
    return t;
  }

  void output(int32_t tensor) { graph().outputs.push_back(tensor); }

  void op(circle::BuiltinOperator builtin, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
          circle::BuiltinOptionsUnion options = {}) {
    CircleOperator o;
    o.opcode_index = model_.operatorCodeIndex(builtin);
    o.inputs = std::move(inputs);
    o.outputs = std::move(outputs);
    o.builtin_options = std::move(options);
    graph().operators.push_back(std::move(o));
  }

  template <typename T> static circle::BuiltinOptionsUnion options(T table) {
    circle::BuiltinOptionsUnion u;
    u.Set(std::move(table));
    return u;
  }

  CircleModel &model() { return model_; }
  std::shared_ptr<const CircleModel> build() { return std::make_shared<const CircleModel>(model_); }

private:
  CircleSubGraph &graph() { return model_.subgraphs[current_]; }
  CircleModel model_;
  std::size_t current_ = 0;
};

inline std::vector<TensorPtr> runModel(const std::shared_ptr<const CircleModel> &model,
                                       const std::vector<TensorPtr> &inputs) {
  CircleInterpreter interpreter(model);
  return interpreter.run(inputs);
}

// A one-operator model: inputs are graph inputs (dtype/shape from the given tensors) unless
// listed in `constants` (index -> data); one output of `out_dtype` with the declared `out_shape`
// (empty = rank unknown, not checked).
struct SingleOp {
  circle::BuiltinOperator builtin;
  circle::BuiltinOptionsUnion options;
  std::vector<TensorPtr> inputs;
  DType out_dtype = DType::Float32;
  std::vector<int32_t> out_shape;
  std::size_t outputs = 1;
};

inline std::vector<TensorPtr> runSingle(SingleOp spec) {
  ModelBuilder b;
  std::vector<int32_t> ins;
  std::vector<TensorPtr> feeds;
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    const TensorPtr &t = spec.inputs[i];
    if (!t) {
      ins.push_back(-1);
      continue;
    }
    std::vector<int32_t> shape(t->sizes.begin(), t->sizes.end());
    ins.push_back(b.input("in" + std::to_string(i), t->dtype, shape));
    feeds.push_back(t);
  }
  std::vector<int32_t> outs;
  for (std::size_t o = 0; o < spec.outputs; ++o) {
    outs.push_back(b.tensor("out" + std::to_string(o), spec.out_dtype, spec.out_shape));
    b.output(outs.back());
  }
  b.op(spec.builtin, ins, outs, std::move(spec.options));
  return runModel(b.build(), feeds);
}

} // namespace tico::test
