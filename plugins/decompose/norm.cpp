// decompose-group-norm (DecomposeGroupNorm): layer and group normalisation become
//   mean, sub, pow 2, mean, add eps, rsqrt, mul (then mul weight, add bias),
// with a reshape to [N, G, -1] around group norm. Handles the composite forms torch.export
// records (layer_norm, group_norm) and the native_ forms run_decompositions() leaves; the
// native forms' mean/rstd outputs must be unused (they are, in inference graphs).
// batchNormWithoutStatsRules(), applied by decompose-composite-ops only (through mathRules(); the
// original's DecomposeGroupNorm does not take batch norms):
// _native_batch_norm_legit.no_stats (what instance norm becomes after run_decompositions: a
// batch norm of the input viewed as [1, N*C, *] without running statistics) normalises with
// the statistics of the input itself, over every dim but 1, then the per-channel affine. (A
// pipeline fusing it into INSTANCE_NORM with fuse-instance-norm keeps it with
// decompose-composite-ops{preserve=[aten::_native_batch_norm_legit.no_stats]}.) Also there:
// instance_norm of a rank INSTANCE_NORM does not take, normalised the same way per sample.
#include "decomposition.h"

#include "tico/ir/shape_utils.h"
#include "tico/support/error.h"

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

// (x - mean) * rsqrt(var + eps) over `dims` (biased variance, as PyTorch's norms use).
Value *normalize(Builder &b, Value *x, const std::vector<int64_t> &dims, double eps) {
  auto mean = [&](Value *v) {
    return b.make("aten::mean.dim", std::vector<Argument>{A(v), Ints(dims), A(true)});
  };
  Value *centered = b.sub(A(x), A(mean(x)));
  Value *var = mean(b.make("aten::pow.Tensor_Scalar", {A(centered), A(2.0)}));
  Value *rstd = b.make("aten::rsqrt.default", {A(b.add(A(var), A(eps)))});
  return b.mul(A(centered), A(rstd));
}

Value *affine(Builder &b, Value *y, Value *weight, Value *bias) {
  if (weight)
    y = b.mul(A(y), A(weight));
  if (bias)
    y = b.add(A(y), A(bias));
  return y;
}

std::size_t listLength(const Argument &arg) {
  return arg.isIntList() ? arg.asInts().size() : arg.asSymInts().size();
}

Replacement layerNorm(Builder &b, Node &n) {
  if (!onlyFirstOutputUsed(b.graph(), n))
    return std::nullopt;
  Value *x = n.input("input");
  const auto k = static_cast<int64_t>(listLength(n.arg("normalized_shape")));
  if (k == 0 || k > static_cast<int64_t>(x->rank()))
    return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t d = -k; d < 0; ++d)
    dims.push_back(d);
  Value *y = normalize(b, x, dims, numberArg(n, "eps", 1e-5));
  std::vector<Value *> out(n.numOutputs(), nullptr);
  out[0] = affine(b, y, optionalValue(n, "weight"), optionalValue(n, "bias"));
  return out;
}

// Group norm over x [N, C, *]: normalise [N, G, C/G * prod(*)], reshape back, then the
// per-channel affine with weight/bias viewed as [C, 1, ...].
Replacement groupNorm(Builder &b, Node &n, int64_t groups) {
  if (!onlyFirstOutputUsed(b.graph(), n))
    return std::nullopt;
  Value *x = n.input("input");
  const Shape &shape = x->shape();
  if (shape.size() < 2 || groups <= 0)
    return std::nullopt;
  std::optional<Dim> per_group = divDims(shape[1], Dim(groups));
  if (!per_group)
    return std::nullopt;
  Shape grouped{shape[0], Dim(groups), mulDims(*per_group, productOf(shape, 2, shape.size()))};
  Value *packed = b.reshape(x, grouped);
  if (!packed)
    return std::nullopt;
  Value *y = b.reshape(normalize(b, packed, {-1}, numberArg(n, "eps", 1e-5)), shape, {x});
  if (!y)
    return std::nullopt;
  Shape channel_shape{shape[1]};
  for (std::size_t i = 2; i < shape.size(); ++i)
    channel_shape.push_back(Dim(1));
  auto perChannel = [&](Value *v) -> Value * { return v ? b.reshape(v, channel_shape, {x}) : nullptr; };
  std::vector<Value *> out(n.numOutputs(), nullptr);
  Value *weight = perChannel(optionalValue(n, "weight")); // in order: the printed graph is stable
  Value *bias = perChannel(optionalValue(n, "bias"));
  out[0] = affine(b, y, weight, bias);
  return out;
}

// normalize(x) over `dims` with the node's eps, then its weight / bias (if any) per channel
// (dim 1) viewed as [C, 1, ...]; null when a parameter cannot be viewed so.
Value *normalizeWithChannelAffine(Builder &b, Node &n, Value *x, const std::vector<int64_t> &dims) {
  const Shape &shape = x->shape();
  Value *y = normalize(b, x, dims, numberArg(n, "eps", 1e-5));
  Shape channel_shape{shape[1]};
  for (std::size_t i = 2; i < shape.size(); ++i)
    channel_shape.push_back(Dim(1));
  auto perChannel = [&](Value *v) -> Value * { return v ? b.reshape(v, channel_shape, {x}) : nullptr; };
  Value *weight = perChannel(optionalValue(n, "weight"));
  Value *bias = perChannel(optionalValue(n, "bias"));
  if ((optionalValue(n, "weight") && !weight) || (optionalValue(n, "bias") && !bias))
    return nullptr;
  return affine(b, y, weight, bias);
}

Replacement batchNormWithoutStats(Builder &b, Node &n) {
  if (!onlyFirstOutputUsed(b.graph(), n))
    throw Error(n.op().str() + " at node '" + n.name() +
                "': only its first output (the normalised input) can be converted; the saved mean and "
                "inverse standard deviation are used");
  Value *x = n.input("input");
  const Shape &shape = x->shape();
  if (shape.size() < 2)
    return std::nullopt;
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d)
    dims.push_back(d);
  Value *y = normalizeWithChannelAffine(b, n, x, dims);
  if (!y)
    return std::nullopt;
  std::vector<Value *> out(n.numOutputs(), nullptr);
  out[0] = y;
  return out;
}

// instance_norm with input statistics on an input INSTANCE_NORM does not take (rank other than
// 4): normalised over the spatial dims 2.. of each (sample, channel), then the per-channel
// affine. Rank 4 is left to the INSTANCE_NORM lowering; running statistics
// (use_input_stats=False) are not matched.
Replacement instanceNorm(Builder &b, Node &n) {
  Value *x = n.input("input");
  const Shape &shape = x->shape();
  if (shape.size() < 3 || shape.size() == 4 || !n.arg("use_input_stats").asBool())
    return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d)
    dims.push_back(d);
  Value *y = normalizeWithChannelAffine(b, n, x, dims);
  return y ? Replacement(std::vector<Value *>{y}) : std::nullopt;
}

} // namespace

std::vector<Rule> normRules() {
  return {
      {"aten::layer_norm.default", layerNorm},
      {"aten::native_layer_norm.default", layerNorm},
      {"aten::group_norm.default",
       [](Builder &b, Node &n) { return groupNorm(b, n, passes::staticInt(n.arg("num_groups")).value_or(0)); }},
      {"aten::native_group_norm.default",
       [](Builder &b, Node &n) { return groupNorm(b, n, passes::staticInt(n.arg("group")).value_or(0)); }},
  };
}

std::vector<Rule> batchNormWithoutStatsRules() {
  return {{"aten::_native_batch_norm_legit.no_stats", batchNormWithoutStats},
          {"aten::instance_norm.default", instanceNorm}};
}

} // namespace tico::decompose
