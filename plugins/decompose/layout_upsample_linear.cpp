// upsample_linear1d (F.interpolate mode="linear") on x[N, C, L] as two static gathers and a
// weighted sum along L: for output position i, PyTorch's CPU kernel reads
//   src = align_corners ? i * (L - 1) / (out - 1) : max((i + 0.5) * scale - 0.5, 0)
// (scale = 1 / scale_factor when a factor is given, else L / out), i0 = floor(src),
// i1 = min(i0 + 1, L - 1), w1 = src - i0, and returns x[i0] * (1 - w1) + x[i1] * w1.
// Everything but x is static, so the positions become constant index_select indices and the
// weights constant [out] tensors. The arithmetic is done in float, as the kernel does it for
// float32 input; other dtypes are left alone. Needs a static L.
#include "layout_rules.h"

#include <algorithm>
#include <cmath>

namespace tico::decompose {

using passes::A;

namespace {

struct LinearTaps {
  std::vector<int64_t> first, second;
  std::vector<float> first_weight, second_weight;
};

LinearTaps linearTaps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale_factor) {
  float scale;
  if (align_corners)
    scale = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  else if (scale_factor && *scale_factor > 0)
    scale = static_cast<float>(1.0 / *scale_factor);
  else
    scale = static_cast<float>(in) / static_cast<float>(out);
  LinearTaps taps;
  for (int64_t i = 0; i < out; ++i) {
    float src = align_corners ? scale * static_cast<float>(i)
                              : std::max(scale * (static_cast<float>(i) + 0.5f) - 0.5f, 0.0f);
    const auto i0 = std::min(static_cast<int64_t>(src), in - 1);
    const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
    const float w1 = std::clamp(src - static_cast<float>(i0), 0.0f, 1.0f);
    taps.first.push_back(i0);
    taps.second.push_back(i1);
    taps.first_weight.push_back(1.0f - w1);
    taps.second_weight.push_back(w1);
  }
  return taps;
}

// The output length and scale factor of the .vec form (output_size or scale_factors) and of
// the plain form (output_size with an optional scales).
std::optional<std::pair<int64_t, std::optional<double>>> outputLength(const Node &n, int64_t in) {
  const Argument *size_arg = n.findArg("output_size");
  std::optional<double> factor;
  if (const Argument *factors = n.findArg("scale_factors"); factors != nullptr && !factors->isNone()) {
    if (factors->kind() != Argument::Kind::FloatList || factors->asDoubles().size() != 1)
      return std::nullopt;
    factor = factors->asDoubles()[0];
  } else if (const Argument *scales = n.findArg("scales"); scales != nullptr && !scales->isNone()) {
    factor = scales->asDouble();
  }
  if (size_arg != nullptr && !size_arg->isNone()) {
    const std::optional<std::vector<int64_t>> size = staticInts(*size_arg);
    if (!size || size->size() != 1)
      return std::nullopt;
    return std::make_pair((*size)[0], factor);
  }
  if (!factor)
    return std::nullopt;
  return std::make_pair(static_cast<int64_t>(std::floor(static_cast<double>(in) * *factor)), factor);
}

Replacement upsampleLinear1d(Builder &b, Node &n) {
  Value *x = n.input(std::size_t{0});
  if (x->rank() != 3 || x->dtype() != DType::Float32 || !x->shape()[2].isStatic())
    return std::nullopt;
  const int64_t in = x->shape()[2].value();
  const auto length = outputLength(n, in);
  if (!length || length->first < 1 || in < 1)
    return std::nullopt;
  const int64_t out = length->first;
  const LinearTaps taps = linearTaps(in, out, n.arg("align_corners").asBool(), length->second);
  auto indices = [&](const char *suffix, const std::vector<int64_t> &values) {
    return b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Int64, {out}, values)),
                      std::string("_") + suffix);
  };
  auto weights = [&](const char *suffix, const std::vector<float> &values) {
    return b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {out}, values)),
                      std::string("_") + suffix);
  };
  Value *left = b.make("aten::index_select.default", {A(x), A(int64_t{2}), A(indices("left_index", taps.first))});
  Value *right = b.make("aten::index_select.default", {A(x), A(int64_t{2}), A(indices("right_index", taps.second))});
  Value *weighted_left = b.mul(A(left), A(weights("left_weight", taps.first_weight)));
  Value *weighted_right = b.mul(A(right), A(weights("right_weight", taps.second_weight)));
  return std::vector<Value *>{b.add(A(weighted_left), A(weighted_right))};
}

} // namespace

std::vector<Rule> layoutUpsampleRules() {
  return {{"aten::upsample_linear1d.vec", upsampleLinear1d}, {"aten::upsample_linear1d.default", upsampleLinear1d}};
}

} // namespace tico::decompose
