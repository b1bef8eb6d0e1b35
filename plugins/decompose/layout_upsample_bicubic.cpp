// upsample_bicubic2d (F.interpolate mode="bicubic") on x[N, C, H, W] as separable 4-tap
// filters with constant taps: first along W, then along H, each output position summing
// index_select(x, dim, tap_k) * weight_k over k = 0..3. For output i PyTorch's CPU kernel reads
//   src = align_corners ? i * (in - 1) / (out - 1) : (i + 0.5) * scale - 0.5   (not clamped)
// (scale = 1 / scale_factor when given, else in / out), i0 = min(floor(src), in - 1),
// t = clamp(src - i0, 0, 1), taps i0 - 1 .. i0 + 2 clamped to [0, in - 1], and Keys' cubic
// convolution weights with A = -0.75. Arithmetic in float as the kernel does for float32;
// other dtypes and symbolic H/W are left alone.
#include "layout_rules.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tico::decompose {

using passes::A;

namespace {

struct CubicTaps {
  std::array<std::vector<int64_t>, 4> index;
  std::array<std::vector<float>, 4> weight;
};

float cubicNear(float x, float a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }          // |x| <= 1
float cubicFar(float x, float a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }     // 1 < |x| < 2

CubicTaps cubicTaps(int64_t in, int64_t out, bool align_corners, std::optional<double> factor) {
  float scale;
  if (align_corners)
    scale = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  else if (factor && *factor > 0)
    scale = static_cast<float>(1.0 / *factor);
  else
    scale = static_cast<float>(in) / static_cast<float>(out);
  const float a = -0.75f;
  CubicTaps taps;
  for (int64_t i = 0; i < out; ++i) {
    const float src = align_corners ? scale * static_cast<float>(i) : scale * (static_cast<float>(i) + 0.5f) - 0.5f;
    const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
    const float t = std::clamp(src - static_cast<float>(i0), 0.0f, 1.0f);
    const std::array<float, 4> w{cubicFar(t + 1.0f, a), cubicNear(t, a), cubicNear(1.0f - t, a),
                                 cubicFar(2.0f - t, a)};
    for (int k = 0; k < 4; ++k) {
      taps.index[k].push_back(std::clamp<int64_t>(i0 - 1 + k, 0, in - 1));
      taps.weight[k].push_back(w[k]);
    }
  }
  return taps;
}

// sum_k index_select(x, dim, taps.index[k]) * taps.weight[k], weights shaped to broadcast
// along `dim` of a rank-4 tensor.
Value *filter(Builder &b, Value *x, int64_t dim, const CubicTaps &taps, const char *name) {
  const auto out = static_cast<int64_t>(taps.index[0].size());
  const std::vector<int64_t> weight_shape = dim == 3 ? std::vector<int64_t>{out} : std::vector<int64_t>{out, 1};
  Value *sum = nullptr;
  for (int k = 0; k < 4; ++k) {
    const std::string suffix = std::string(name) + "_tap" + std::to_string(k);
    Value *index = b.constant(
        std::make_shared<const TensorData>(TensorData::fromVector(DType::Int64, {out}, taps.index[k])),
        "_" + suffix + "_index");
    Value *weight = b.constant(
        std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, weight_shape, taps.weight[k])),
        "_" + suffix + "_weight");
    Value *term = b.mul(A(b.make("aten::index_select.default", {A(x), A(dim), A(index)})), A(weight));
    sum = sum == nullptr ? term : b.add(A(sum), A(term));
  }
  return sum;
}

Replacement upsampleBicubic2d(Builder &b, Node &n) {
  Value *x = n.input(std::size_t{0});
  if (x->rank() != 4 || x->dtype() != DType::Float32 || !x->shape()[2].isStatic() || !x->shape()[3].isStatic())
    return std::nullopt;
  const int64_t in_h = x->shape()[2].value(), in_w = x->shape()[3].value();
  std::array<std::optional<double>, 2> factors;
  if (const Argument *f = n.findArg("scale_factors"); f != nullptr && !f->isNone()) {
    if (f->kind() != Argument::Kind::FloatList || f->asDoubles().size() != 2)
      return std::nullopt;
    factors = {f->asDoubles()[0], f->asDoubles()[1]};
  }
  for (auto [name, slot] : {std::pair{"scales_h", 0}, std::pair{"scales_w", 1}})
    if (const Argument *s = n.findArg(name); s != nullptr && !s->isNone())
      factors[slot] = s->asDouble();
  int64_t out_h = 0, out_w = 0;
  if (const Argument *size = n.findArg("output_size"); size != nullptr && !size->isNone()) {
    const std::optional<std::vector<int64_t>> sizes = staticInts(*size);
    if (!sizes || sizes->size() != 2)
      return std::nullopt;
    out_h = (*sizes)[0];
    out_w = (*sizes)[1];
  } else if (factors[0] && factors[1]) {
    out_h = static_cast<int64_t>(std::floor(static_cast<double>(in_h) * *factors[0]));
    out_w = static_cast<int64_t>(std::floor(static_cast<double>(in_w) * *factors[1]));
  }
  if (in_h < 1 || in_w < 1 || out_h < 1 || out_w < 1)
    return std::nullopt;
  const bool align_corners = n.arg("align_corners").asBool();
  Value *rows = filter(b, x, 3, cubicTaps(in_w, out_w, align_corners, factors[1]), "w");
  return std::vector<Value *>{filter(b, rows, 2, cubicTaps(in_h, out_h, align_corners, factors[0]), "h")};
}

} // namespace

std::vector<Rule> layoutBicubicRules() {
  return {{"aten::upsample_bicubic2d.vec", upsampleBicubic2d}, {"aten::upsample_bicubic2d.default", upsampleBicubic2d}};
}

} // namespace tico::decompose
