#include "bias_correction.h"

#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cstring>

namespace tico::ptq {
namespace {

bool intPair(const Node &node, std::string_view name, int &a, int &b) {
  const Argument *arg = node.findArg(name);
  if (arg == nullptr)
    return true; // the schema default, 1 or 0, already in a and b
  if (!arg->isIntList())
    return false;
  const std::vector<int64_t> &v = arg->asInts();
  if (v.size() != 1 && v.size() != 2)
    return false;
  a = static_cast<int>(v[0]);
  b = static_cast<int>(v.back());
  return true;
}

std::vector<float> contiguousFloats(const TensorData &t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  t.copyContiguousTo(reinterpret_cast<std::byte *>(out.data()));
  return out;
}

// TFLite's SAME: ceil(in / stride) outputs, the padding split with the odd element after.
int samePadBefore(int64_t in, int kernel, int stride, int dilation) {
  const int64_t out = (in + stride - 1) / stride;
  const int64_t total = std::max<int64_t>((out - 1) * stride + static_cast<int64_t>(dilation) * (kernel - 1) + 1 - in, 0);
  return static_cast<int>(total / 2);
}

int64_t outputSize(int64_t in, int kernel, int stride, int dilation, int pad, bool same) {
  if (same)
    return (in + stride - 1) / stride;
  return (in + 2 * pad - static_cast<int64_t>(dilation) * (kernel - 1) - 1) / stride + 1;
}

} // namespace

std::optional<PatchMeans> PatchMeans::forLayer(const Node &node, std::string &why) {
  namespace aten = ops::aten;
  namespace circle = ops::circle;
  PatchMeans m;
  const Value *w = node.numArgs() > 1 && node.arg(1).isValue() ? node.input(1) : nullptr;
  if (w == nullptr || !w->isConstant()) {
    why = "no constant weight";
    return std::nullopt;
  }
  m.weight_sizes_ = w->constant()->sizes;
  const std::vector<int64_t> &s = m.weight_sizes_;
  const OpId op = node.opId();
  if (op == aten::linear_default) {
    if (s.size() != 2) {
      why = "a linear weight that is not 2-D";
      return std::nullopt;
    }
    m.kind_ = Kind::Linear;
    m.sums_.assign(static_cast<std::size_t>(s[1]), 0.0);
    return m;
  }
  const bool nhwc = op == circle::conv2d_default || op == circle::conv2d_padding;
  const bool depthwise = op == circle::depthwise_conv2d_default || op == circle::depthwise_conv2d_padding;
  const bool nchw = op == aten::conv2d_default;
  if (!nhwc && !depthwise && !nchw) {
    why = "not a linear or 2-D convolution";
    return std::nullopt;
  }
  if (s.size() != 4 || node.input(0)->rank() != 4 || !node.input(0)->shape()[nchw ? 1 : 3].isStatic()) {
    why = "a convolution without a 4-D weight and input of known channels";
    return std::nullopt;
  }
  if (!intPair(node, "stride", m.stride_h_, m.stride_w_) || !intPair(node, "dilation", m.dilation_h_, m.dilation_w_)) {
    why = "a stride or dilation that is not numeric";
    return std::nullopt;
  }
  const Argument *padding = node.findArg("padding");
  if (padding != nullptr && padding->kind() == Argument::Kind::String) {
    if (padding->asString() != "same" && padding->asString() != "valid") {
      why = "padding '" + padding->asString() + "'";
      return std::nullopt;
    }
    m.same_ = padding->asString() == "same";
  } else if (!intPair(node, "padding", m.pad_top_, m.pad_left_)) {
    why = "a padding that is not numeric";
    return std::nullopt;
  }
  const int64_t channels = node.input(0)->shape()[nchw ? 1 : 3].value();
  if (nchw) {
    const Argument *groups = node.findArg("groups");
    m.groups_ = groups != nullptr && groups->isInt() ? groups->asInt() : 1;
    m.kind_ = Kind::ConvNchw;
    m.sums_.assign(static_cast<std::size_t>(channels * s[2] * s[3]), 0.0);
  } else {
    m.kind_ = depthwise ? Kind::DepthwiseNhwc : Kind::ConvNhwc;
    if (depthwise && (s[0] != 1 || s[3] % channels != 0)) {
      why = "a depthwise weight that is not [1, kh, kw, C * multiplier]";
      return std::nullopt;
    }
    m.sums_.assign(static_cast<std::size_t>(s[1] * s[2] * channels), 0.0);
  }
  return m;
}

void PatchMeans::add(const TensorData &input) {
  const std::vector<float> x = contiguousFloats(input);
  const std::vector<int64_t> &in = input.sizes;
  if (kind_ == Kind::Linear) {
    const std::size_t features = sums_.size();
    if (in.empty() || in.back() != static_cast<int64_t>(features))
      throw Error("bias correction: a linear input batch has " + std::to_string(in.empty() ? 0 : in.back()) +
                  " features, the weight " + std::to_string(features));
    const std::size_t rows = x.size() / features;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < features; ++k)
        sums_[k] += x[r * features + k];
    positions_ += rows;
    return;
  }
  const bool nchw = kind_ == Kind::ConvNchw;
  if (in.size() != 4)
    throw Error("bias correction: a convolution input batch is not 4-D");
  const int64_t n = in[0], c = nchw ? in[1] : in[3], h = nchw ? in[2] : in[1], w = nchw ? in[3] : in[2];
  const int kh = static_cast<int>(nchw ? weight_sizes_[2] : weight_sizes_[1]);
  const int kw = static_cast<int>(nchw ? weight_sizes_[3] : weight_sizes_[2]);
  if (static_cast<std::size_t>(c * kh * kw) != sums_.size())
    throw Error("bias correction: a convolution input batch does not match the layer's channels and kernel");
  const int pt = same_ ? samePadBefore(h, kh, stride_h_, dilation_h_) : pad_top_;
  const int pl = same_ ? samePadBefore(w, kw, stride_w_, dilation_w_) : pad_left_;
  const int64_t oh = outputSize(h, kh, stride_h_, dilation_h_, pad_top_, same_);
  const int64_t ow = outputSize(w, kw, stride_w_, dilation_w_, pad_left_, same_);
  if (oh <= 0 || ow <= 0)
    return;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int i = 0; i < kh; ++i) {
        const int64_t iy = oy * stride_h_ - pt + static_cast<int64_t>(i) * dilation_h_;
        if (iy < 0 || iy >= h)
          continue;
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int j = 0; j < kw; ++j) {
            const int64_t ix = ox * stride_w_ - pl + static_cast<int64_t>(j) * dilation_w_;
            if (ix < 0 || ix >= w)
              continue;
            if (nchw) {
              for (int64_t ch = 0; ch < c; ++ch)
                sums_[static_cast<std::size_t>((ch * kh + i) * kw + j)] +=
                    x[static_cast<std::size_t>(((b * c + ch) * h + iy) * w + ix)];
            } else {
              const float *px = &x[static_cast<std::size_t>(((b * h + iy) * w + ix) * c)];
              double *sum = &sums_[static_cast<std::size_t>((i * kw + j) * c)];
              for (int64_t ch = 0; ch < c; ++ch)
                sum[ch] += px[ch];
            }
          }
      }
  positions_ += static_cast<std::size_t>(n * oh * ow);
}

std::vector<double> PatchMeans::outputShift(const std::vector<float> &delta) const {
  if (positions_ == 0)
    throw Error("bias correction: no calibration batch reached the layer");
  const double inv = 1.0 / static_cast<double>(positions_);
  const std::vector<int64_t> &s = weight_sizes_;
  std::vector<double> shift;
  switch (kind_) {
  case Kind::Linear: {
    const int64_t out = s[0], features = s[1];
    shift.assign(static_cast<std::size_t>(out), 0.0);
    for (int64_t o = 0; o < out; ++o)
      for (int64_t k = 0; k < features; ++k)
        shift[o] += delta[static_cast<std::size_t>(o * features + k)] * sums_[k];
    break;
  }
  case Kind::ConvNhwc: { // [O, kh, kw, C], sums [kh, kw, C]: the same trailing layout
    const int64_t out = s[0], patch = s[1] * s[2] * s[3];
    shift.assign(static_cast<std::size_t>(out), 0.0);
    for (int64_t o = 0; o < out; ++o)
      for (int64_t k = 0; k < patch; ++k)
        shift[o] += delta[static_cast<std::size_t>(o * patch + k)] * sums_[k];
    break;
  }
  case Kind::DepthwiseNhwc: { // [1, kh, kw, C * m]: output o reads channel o / m
    const int64_t taps = s[1] * s[2], out = s[3];
    const int64_t channels = static_cast<int64_t>(sums_.size()) / taps, multiplier = out / channels;
    shift.assign(static_cast<std::size_t>(out), 0.0);
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t o = 0; o < out; ++o)
        shift[o] += delta[static_cast<std::size_t>(t * out + o)] * sums_[static_cast<std::size_t>(t * channels + o / multiplier)];
    break;
  }
  case Kind::ConvNchw: { // [O, C/g, kh, kw], sums [C, kh, kw]
    const int64_t out = s[0], per_group = s[1], taps = s[2] * s[3];
    const int64_t outs_per_group = out / groups_;
    shift.assign(static_cast<std::size_t>(out), 0.0);
    for (int64_t o = 0; o < out; ++o) {
      const int64_t first_channel = (o / outs_per_group) * per_group;
      for (int64_t k = 0; k < per_group * taps; ++k)
        shift[o] += delta[static_cast<std::size_t>(o * per_group * taps + k)] *
                    sums_[static_cast<std::size_t>(first_channel * taps + k)];
    }
    break;
  }
  }
  for (double &v : shift)
    v *= inv;
  return shift;
}

} // namespace tico::ptq
