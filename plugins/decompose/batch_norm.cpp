// decompose-batch-norm (DecomposeBatchNorm): inference batch norm becomes x * W + B per channel
// (dim 1), W = weight / sqrt(running_var + eps), B = bias - running_mean * W. With constant
// float32 statistics, W and B are computed here as new [C, 1, ...] constants (the usual case:
// parameters and buffers), so no evaluator is needed; otherwise they are built from graph ops.
// batch_norm with training=True and running statistics is an error: it updates them, which a
// converted inference model cannot do. Without running statistics (training=True,
// running_mean = running_var = None) nothing is updated: it normalises x with its own
// statistics over every dim but the channel (biased variance), which is how timm's
// weight-standardised convolutions (StdConv2d: BiT, NFNets, hybrid ViT stems) normalise their
// weights; that form is decomposed (a constant weight folds to a constant).
#include "decomposition.h"

#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include <cmath>
#include <cstring>

namespace tico::decompose {

using passes::A;

namespace {

std::optional<std::vector<float>> constantFloats(const Value *v) {
  if (v == nullptr || !v->isConstant() || v->dtype() != DType::Float32)
    return std::nullopt;
  std::vector<std::byte> bytes = v->constant()->contiguousBytes();
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

Replacement batchNorm(Builder &b, Node &n) {
  if (!onlyFirstOutputUsed(b.graph(), n))
    return std::nullopt;
  Value *x = n.input("input");
  Value *weight = optionalValue(n, "weight");
  Value *bias = optionalValue(n, "bias");
  Value *mean = optionalValue(n, "running_mean");
  Value *var = optionalValue(n, "running_var");
  const double eps = numberArg(n, "eps", 1e-5);
  if (x->rank() < 2 || mean == nullptr || var == nullptr || !x->shape()[1].isStatic())
    return std::nullopt;
  const int64_t channels = x->shape()[1].value();
  // Every statistic is a [C] vector (PyTorch checks this at export; a hand-written graph may not).
  for (const Value *stat : {weight, bias, mean, var})
    if (stat != nullptr && !(stat->rank() == 1 && stat->shape()[0] == Dim(channels)))
      throw Error(n.op().str() + " at node '" + n.name() + "': statistics and affine parameters must have shape [" +
                  std::to_string(channels) + "] (the input's dim 1)");
  std::vector<int64_t> channel_sizes{channels};
  Shape channel_shape{Dim(channels)};
  for (std::size_t i = 2; i < x->rank(); ++i) {
    channel_sizes.push_back(1);
    channel_shape.push_back(Dim(1));
  }

  auto m = constantFloats(mean), v = constantFloats(var);
  auto w = weight ? constantFloats(weight) : std::optional<std::vector<float>>(std::vector<float>(channels, 1.0f));
  auto c = bias ? constantFloats(bias) : std::optional<std::vector<float>>(std::vector<float>(channels, 0.0f));
  const auto n_channels = static_cast<std::size_t>(channels);
  if (x->dtype() == DType::Float32 && m && v && w && c && m->size() == n_channels && v->size() == n_channels &&
      w->size() == n_channels && c->size() == n_channels) {
    std::vector<float> scale(n_channels), shift(n_channels);
    for (std::size_t i = 0; i < n_channels; ++i) {
      // Same operation order as PyTorch's CPU kernel: invstd in float, then fused terms.
      const float invstd = 1.0f / std::sqrt((*v)[i] + static_cast<float>(eps));
      scale[i] = (*w)[i] * invstd;
      shift[i] = (*c)[i] - (*m)[i] * scale[i];
    }
    auto tensor = [&](const std::vector<float> &values) {
      return std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, channel_sizes, values));
    };
    Value *scaled = b.mul(A(x), A(b.constant(tensor(scale), "_scale")));
    std::vector<Value *> out(n.numOutputs(), nullptr);
    out[0] = b.add(A(scaled), A(b.constant(tensor(shift), "_shift")));
    return out;
  }

  // Statistics computed in the graph: the same formula with ops, viewed as [C, 1, ...].
  Value *scale = b.make("aten::rsqrt.default", {A(b.add(A(var), A(eps)))});
  if (weight)
    scale = b.mul(A(scale), A(weight));
  Value *shift = b.mul(A(mean), A(scale));
  shift = bias ? b.sub(A(bias), A(shift)) : b.make("aten::neg.default", {A(shift)});
  Value *scale_c = b.reshape(scale, channel_shape);
  Value *shift_c = b.reshape(shift, channel_shape);
  if (!scale_c || !shift_c)
    return std::nullopt;
  std::vector<Value *> out(n.numOutputs(), nullptr);
  out[0] = b.add(A(b.mul(A(x), A(scale_c))), A(shift_c));
  return out;
}

// batch_norm(x, w, b, None, None, training=True, eps): (x - mean) rsqrt(var + eps) w + b, the
// statistics over every dim but 1.
Replacement batchStatisticsNorm(Builder &b, Node &n) {
  if (!onlyFirstOutputUsed(b.graph(), n))
    return std::nullopt;
  Value *x = n.input("input");
  if (x->rank() < 2 || x->dtype() != DType::Float32)
    return std::nullopt;
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < static_cast<int64_t>(x->rank()); ++d)
    dims.push_back(d);
  const double eps = numberArg(n, "eps", 1e-5);
  Value *mean = b.make("aten::mean.dim", {A(x), rewrite::Ints(dims), A(true)});
  Value *centred = b.sub(A(x), A(mean));
  Value *var = b.make("aten::mean.dim", {A(b.mul(A(centred), A(centred))), rewrite::Ints(dims), A(true)});
  Value *y = b.mul(A(centred), A(b.make("aten::rsqrt.default", {A(b.add(A(var), A(eps)))})));
  Shape channel_shape{x->shape()[1]};
  for (std::size_t i = 2; i < x->rank(); ++i)
    channel_shape.push_back(Dim(1));
  for (const char *name : {"weight", "bias"})
    if (Value *affine = optionalValue(n, name)) {
      Value *per_channel = b.reshape(affine, channel_shape);
      if (per_channel == nullptr)
        return std::nullopt;
      y = std::string(name) == "weight" ? b.mul(A(y), A(per_channel)) : b.add(A(y), A(per_channel));
    }
  std::vector<Value *> out(n.numOutputs(), nullptr);
  out[0] = y;
  return out;
}

} // namespace

std::vector<Rule> batchNormRules() {
  return {
      {"aten::_native_batch_norm_legit_no_training.default", batchNorm},
      {"aten::batch_norm.default",
       [](Builder &b, Node &n) -> Replacement {
         if (n.arg("training").asBool() && optionalValue(n, "running_mean") == nullptr &&
             optionalValue(n, "running_var") == nullptr)
           return batchStatisticsNorm(b, n);
         if (n.arg("training").asBool())
           throw Error("aten::batch_norm.default at node '" + n.name() +
                       "' is in training mode (training=True); tico converts inference graphs: call "
                       "model.eval() before torch.export");
         return batchNorm(b, n);
       }},
  };
}

} // namespace tico::decompose
