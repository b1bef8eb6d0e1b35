// Shared scaffolding of the evaluator tests: the aten-eval plugin loaded the way tico-run
// loads it, and small tensor helpers.
#pragma once

#include "tico/eval/evaluator.h"
#include "tico/plugin/loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace tico::evaltest {

struct AtenEval {
  Registry registry;
  PluginSet plugins;
  std::shared_ptr<const Evaluator> evaluator; // created on load (this loads LibTorch)
};

// Null when the build has no LibTorch backend. Lives for the whole test run, like tico-run's
// plugins.
inline const AtenEval *atenEval() {
  static const AtenEval *loaded = []() -> const AtenEval * {
    const std::string dir = TICO_PLUGIN_DIR;
    if (!std::filesystem::exists(dir + "/../backends/libtico-aten-eval-torch.so"))
      return nullptr;
    auto *e = new AtenEval();
    e->plugins.load(dir + "/libtico-aten-eval.so", e->registry);
    e->evaluator = e->registry.evaluator()->spec.create();
    return e;
  }();
  return loaded;
}

inline std::shared_ptr<const TensorData> f32(std::vector<int64_t> sizes, std::vector<float> values) {
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, std::move(sizes), values));
}

inline std::shared_ptr<const TensorData> i64(std::vector<int64_t> sizes, std::vector<int64_t> values) {
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Int64, std::move(sizes), values));
}

template <typename T = float> std::vector<T> valuesOf(const TensorData &t) {
  std::vector<std::byte> bytes = t.contiguousBytes();
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

inline OpKey op(const std::string &text) { return OpKey::parseOrThrow(text); }

// Deterministic, irregular values for test weights and inputs; with `scales`, channel c of a
// row-major [channels, ...] tensor is scaled by scales[c] (uneven channel ranges on purpose).
inline std::vector<float> wave(int64_t n, float seed, int64_t channels = 1, const std::vector<float> &scales = {}) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float s = scales.empty() ? 1.0f : scales[static_cast<std::size_t>(i / (n / channels))];
    v[static_cast<std::size_t>(i)] =
        s * std::sin(seed + 0.73f * static_cast<float>(i) + 0.11f * static_cast<float>(i * i % 13));
  }
  return v;
}

// A constant's payload in the textual IR, exact for float32: dense<[v0, v1, ...]>.
inline std::string denseText(const std::vector<float> &v) {
  std::string out = "dense<[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(v[i]));
    out += (i ? ", " : "") + std::string(text);
  }
  return out + "]>";
}


inline TensorTypeSpec tensorOut(DType dtype, Shape shape) {
  TensorTypeSpec spec;
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  return spec;
}

inline TensorTypeSpec symIntOut() {
  TensorTypeSpec spec;
  spec.kind = ValueKind::SymInt;
  spec.dtype = DType::Int64;
  return spec;
}

} // namespace tico::evaltest

// In a fixture's SetUp: the backend must exist unless the build opted out of LibTorch.
#if TICO_WITH_LIBTORCH
#define TICO_REQUIRE_ATEN_EVAL()                                                                   \
  if (::tico::evaltest::atenEval() == nullptr)                                                     \
  FAIL() << "the LibTorch evaluator backend was not built or cannot be loaded"
#else
#define TICO_REQUIRE_ATEN_EVAL()                                                                   \
  if (::tico::evaltest::atenEval() == nullptr)                                                     \
  GTEST_SKIP() << "built with TICO_WITH_LIBTORCH=OFF"
#endif
