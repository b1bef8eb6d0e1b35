// fuse-linear-ops: folds constant affine operations into CONV_2D, DEPTHWISE_CONV_2D,
// TRANSPOSE_CONV and FULLY_CONNECTED parameters.
//
// After a linear operator (its result read only by the affine op, no fused activation yet):
//   y * c   -> weights and bias scaled per output channel
//   y + c   -> bias + c            y - c -> bias - c
// where c is a float32 constant that broadcasts along the channel axis only (scalar, [C],
// [1,...,1,C]) and does not widen the result. The affine op's fused activation moves to the
// linear operator, which then writes the affine op's output tensor. A TRANSPOSE between the
// linear operator and the affine op (the converter's NHWC -> NCHW exit) is allowed when c
// varies only along the axis holding the channels; the TRANSPOSE then writes the output.
// Before a linear operator (the affine result read only by it):
//   FULLY_CONNECTED(x * c), CONV_2D(x * c), DEPTHWISE_CONV_2D(x * c) -> weights scaled per
//   input channel (exact for convolutions: zero padding stays zero);
//   FULLY_CONNECTED(x + c), FULLY_CONNECTED(x - c)                   -> bias + W·c / bias − W·c.
// New weights and biases are new constants; shared parameters are never modified. Weights that
// another operator also reads (a tied embedding table and output projection, as in Gemma or
// Llama 3.2) are not scaled: the old weights would stay for the other reader and the file would
// grow by a copy of them (640 MiB for Gemma 3 270M) to save one MUL on a small activation. Only
// plain float32 (no quantization); reassociation changes results by rounding only.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

struct Linear {
  int weight_slot = 1;
  int bias_slot = 2;
  int data_slot = 0;
  int out_axis = 0;  // axis of the weights indexed by output channel
  int in_axis = -1;  // axis indexed by input channel (-1: per-input scaling unsupported)
  int64_t out_channels = 0;
};

std::optional<Linear> linearOf(const SubgraphEditor &e, int op) {
  const CircleOperator &o = e.op(op);
  Linear l;
  switch (e.code(op)) {
  case BuiltinOperator::CONV_2D: l.out_axis = 0, l.in_axis = 3; break;
  case BuiltinOperator::DEPTHWISE_CONV_2D: l.out_axis = 3, l.in_axis = -1; break; // handled specially
  case BuiltinOperator::FULLY_CONNECTED: {
    const auto *fc = o.builtin_options.AsFullyConnectedOptions();
    if (!fc || fc->weights_format != circle::FullyConnectedOptionsWeightsFormat::DEFAULT)
      return std::nullopt;
    l.out_axis = 0, l.in_axis = 1;
    break;
  }
  case BuiltinOperator::TRANSPOSE_CONV: l.weight_slot = 1, l.bias_slot = 3, l.data_slot = 2, l.out_axis = 0; break;
  default: return std::nullopt;
  }
  if (o.outputs.size() != 1 || static_cast<int>(o.inputs.size()) <= l.weight_slot || e.sideEffects(op))
    return std::nullopt;
  const int32_t w = o.inputs[l.weight_slot];
  if (!e.isConstantTensor(w) || !isPlainFloat32(e.tensor(w)))
    return std::nullopt;
  const auto &shape = e.tensor(w).shape;
  if (static_cast<int>(shape.size()) <= std::max(l.out_axis, l.in_axis))
    return std::nullopt;
  l.out_channels = shape[l.out_axis];
  if (static_cast<int>(o.inputs.size()) > l.bias_slot) {
    int32_t b = o.inputs[l.bias_slot];
    if (b >= 0 && (!e.isConstantTensor(b) || !isPlainFloat32(e.tensor(b)) ||
                   elementCount(e.tensor(b).shape) != l.out_channels))
      return std::nullopt;
  }
  return l;
}

// The per-channel values of constant `c` broadcast against a tensor of `shape` along its
// last axis only (length `channels`), or nullopt.
std::optional<std::vector<float>> channelVector(const SubgraphEditor &e, int32_t c, const std::vector<int32_t> &shape,
                                                int64_t channels) {
  if (!e.isConstantTensor(c) || !isPlainFloat32(e.tensor(c)))
    return std::nullopt;
  const auto &cs = e.tensor(c).shape;
  if (cs.size() > shape.size() || shape.empty() || shape.back() != channels)
    return std::nullopt;
  for (std::size_t d = 0; d + 1 < cs.size(); ++d)
    if (cs[d] != 1)
      return std::nullopt;
  auto values = constantAsFloats(e.model(), e.tensor(c));
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    return std::vector<float>(channels, (*values)[0]);
  if (!cs.empty() && cs.back() == channels && static_cast<int64_t>(values->size()) == channels)
    return values;
  return std::nullopt;
}

std::vector<float> biasValues(const SubgraphEditor &e, int op, const Linear &l) {
  const CircleOperator &o = e.op(op);
  if (static_cast<int>(o.inputs.size()) > l.bias_slot && o.inputs[l.bias_slot] >= 0)
    return *constantAsFloats(e.model(), e.tensor(o.inputs[l.bias_slot]));
  return std::vector<float>(l.out_channels, 0.0f);
}

// Weights with every element multiplied by scale[index along `axis`] (or by the depthwise
// input-channel mapping when `depthwise_multiplier` > 0).
std::vector<float> scaledWeights(const SubgraphEditor &e, int32_t w, int axis, const std::vector<float> &scale,
                                 int64_t group = 1) {
  std::vector<float> values = *constantAsFloats(e.model(), e.tensor(w));
  const auto &shape = e.tensor(w).shape;
  int64_t inner = 1;
  for (std::size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  const int64_t extent = shape[axis];
  for (std::size_t n = 0; n < values.size(); ++n)
    values[n] *= scale[((static_cast<int64_t>(n) / inner) % extent) / group];
  return values;
}

void setBias(SubgraphEditor &e, int op, const Linear &l, const std::vector<float> &bias, int32_t name_from) {
  int32_t b = e.addConstant(circle::TensorType::FLOAT32, {static_cast<int32_t>(l.out_channels)},
                            payloadFromFloats({static_cast<int32_t>(l.out_channels)}, bias),
                            derivedName(e, name_from, "bias"));
  if (static_cast<int>(e.op(op).inputs.size()) <= l.bias_slot)
    e.op(op).inputs.resize(l.bias_slot + 1, -1);
  e.setInput(op, l.bias_slot, b);
}

void setWeights(SubgraphEditor &e, int op, const Linear &l, std::vector<float> values, int32_t name_from) {
  int32_t w = e.op(op).inputs[l.weight_slot];
  std::vector<int32_t> shape = e.tensor(w).shape;
  int32_t nw = e.addConstant(circle::TensorType::FLOAT32, shape, payloadFromFloats(shape, values),
                             derivedName(e, name_from, "weights"));
  e.setInput(op, l.weight_slot, nw);
}

// The per-channel values of constant `c` broadcast against a tensor of `shape` along `axis`
// only (length `channels`), or nullopt.
std::optional<std::vector<float>> channelVectorAt(const SubgraphEditor &e, int32_t c, const std::vector<int32_t> &shape,
                                                  std::size_t axis, int64_t channels) {
  if (!e.isConstantTensor(c) || !isPlainFloat32(e.tensor(c)) || axis >= shape.size() || shape[axis] != channels)
    return std::nullopt;
  const auto &cs = e.tensor(c).shape;
  if (cs.size() > shape.size())
    return std::nullopt;
  const std::size_t offset = shape.size() - cs.size();
  for (std::size_t d = 0; d < cs.size(); ++d)
    if (cs[d] != 1 && !(d + offset == axis && cs[d] == channels))
      return std::nullopt;
  auto values = constantAsFloats(e.model(), e.tensor(c));
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    return std::vector<float>(channels, (*values)[0]);
  if (static_cast<int64_t>(values->size()) == channels)
    return values;
  return std::nullopt;
}

// Whether the weights of linear operator `l_op` are read by anything else: another operator
// reading the tensor, or another tensor of the subgraph on the same buffer.
bool weightsReadElsewhere(const SubgraphEditor &e, int l_op, const Linear &l) {
  const int32_t w = e.op(l_op).inputs[l.weight_slot];
  if (e.consumers(w).size() > 1)
    return true;
  const uint32_t buffer = e.tensor(w).buffer;
  const auto count = static_cast<int32_t>(e.graph().tensors.size());
  for (int32_t t = 0; t < count; ++t)
    if (t != w && e.tensor(t).buffer == buffer && !e.consumers(t).empty())
      return true;
  return false;
}

// Folds the per-channel `cv` of affine operator `a` (MUL, ADD, SUB) into linear operator
// `l_op`, whose fused activation becomes the affine op's.
void foldIntoLinear(SubgraphEditor &e, int a, int l_op, const Linear &l, const std::vector<float> &cv, int32_t z) {
  const BuiltinOperator code = e.code(a);
  std::vector<float> bias = biasValues(e, l_op, l);
  for (int64_t ch = 0; ch < l.out_channels; ++ch) {
    if (code == BuiltinOperator::MUL)
      bias[ch] *= cv[ch];
    else if (code == BuiltinOperator::ADD)
      bias[ch] += cv[ch];
    else
      bias[ch] -= cv[ch];
  }
  if (code == BuiltinOperator::MUL)
    setWeights(e, l_op, l, scaledWeights(e, e.op(l_op).inputs[l.weight_slot], l.out_axis, cv), z);
  setBias(e, l_op, l, bias, z);
  setFusedActivation(e.op(l_op), fusedActivationOf(e.op(a)).value_or(circle::ActivationFunctionType::NONE));
}

// y = TRANSPOSE(L(x), p); z = y (op) c  ->  z = TRANSPOSE(L'(x), p)
// The converter leaves a batch norm after an NHWC convolution behind the TRANSPOSE back to
// NCHW, with its constants along the NCHW channel axis. The TRANSPOSE only moves elements
// and the activation works per element, so the affine op can be folded through it when c
// varies only along the axis the TRANSPOSE takes from the channel axis.
bool fuseAfterTranspose(SubgraphEditor &e, int a, int32_t y, int32_t c, int32_t z) {
  const int t_op = e.producer(y);
  if (t_op < 0 || e.code(t_op) != BuiltinOperator::TRANSPOSE || !e.onlyUseIs(y, a) ||
      e.op(t_op).outputs.size() != 1)
    return false;
  auto perm = transposePermutation(e, t_op);
  const int32_t u = e.op(t_op).inputs[0];
  if (!perm || !e.validTensor(u) || !isFloat32Activation(e.tensor(u)) || !sameQuantization(e.tensor(u), e.tensor(y)))
    return false;
  const int l_op = e.producer(u);
  if (l_op < 0 || !e.onlyUseIs(u, t_op) || !hasNoFusedActivation(e.op(l_op)))
    return false;
  auto l = linearOf(e, l_op);
  const auto &ushape = e.tensor(u).shape;
  if (!l || ushape.empty() || ushape.back() != l->out_channels || perm->size() != ushape.size())
    return false;
  std::size_t axis = perm->size();
  for (std::size_t j = 0; j < perm->size(); ++j)
    if ((*perm)[j] == static_cast<int64_t>(ushape.size()) - 1)
      axis = j;
  auto cv = channelVectorAt(e, c, e.tensor(y).shape, axis, l->out_channels);
  if (!cv || (e.code(a) == BuiltinOperator::MUL && weightsReadElsewhere(e, l_op, *l)))
    return false;
  foldIntoLinear(e, a, l_op, *l, *cv, z);
  e.removeOp(a);
  e.setOutput(t_op, 0, z);
  return true;
}

// y = L(x); z = y (op) c  ->  z = L'(x)
bool fuseAfter(SubgraphEditor &e, int a) {
  const BuiltinOperator code = e.code(a);
  const CircleOperator &affine = e.op(a);
  if (affine.inputs.size() != 2 || affine.outputs.size() != 1)
    return false;
  const int32_t z = affine.outputs[0];
  for (int k = 0; k < 2; ++k) {
    if (code == BuiltinOperator::SUB && k == 1)
      break; // c - y is not affine in the bias alone
    const int32_t y = e.op(a).inputs[k], c = e.op(a).inputs[1 - k];
    if (!e.validTensor(y) || !e.validTensor(z) || !isFloat32Activation(e.tensor(y)) ||
        !sameContract(e.tensor(y), e.tensor(z)))
      continue;
    if (fuseAfterTranspose(e, a, y, c, z))
      return true;
    const int l_op = e.producer(y);
    if (l_op < 0 || !e.onlyUseIs(y, a) || !hasNoFusedActivation(e.op(l_op)))
      continue;
    auto l = linearOf(e, l_op);
    if (!l)
      continue;
    auto cv = channelVector(e, c, e.tensor(y).shape, l->out_channels);
    if (!cv || (code == BuiltinOperator::MUL && weightsReadElsewhere(e, l_op, *l)))
      continue;
    foldIntoLinear(e, a, l_op, *l, *cv, z);
    e.removeOp(a);
    e.setOutput(l_op, 0, z);
    return true;
  }
  return false;
}

// x' = x (op) c; y = L(x')  ->  y = L'(x)
bool fuseBefore(SubgraphEditor &e, int l_op) {
  auto l = linearOf(e, l_op);
  if (!l)
    return false;
  const int32_t xp = e.op(l_op).inputs[l->data_slot];
  const int a = e.producer(xp);
  if (a < 0 || !e.onlyUseIs(xp, l_op) || e.sideEffects(a))
    return false;
  const BuiltinOperator code = e.code(a);
  const bool fc = e.code(l_op) == BuiltinOperator::FULLY_CONNECTED;
  const bool depthwise = e.code(l_op) == BuiltinOperator::DEPTHWISE_CONV_2D;
  if (code != BuiltinOperator::MUL && !(fc && (code == BuiltinOperator::ADD || code == BuiltinOperator::SUB)))
    return false;
  if (e.code(l_op) == BuiltinOperator::TRANSPOSE_CONV)
    return false;
  if (code == BuiltinOperator::MUL && weightsReadElsewhere(e, l_op, *l))
    return false;
  const CircleOperator &affine = e.op(a);
  if (affine.inputs.size() != 2 || !hasNoFusedActivation(affine))
    return false;
  const int32_t w = e.op(l_op).inputs[l->weight_slot];
  const auto &wshape = e.tensor(w).shape;
  const int64_t in_channels = fc ? wshape[1] : (depthwise ? 0 : wshape[3]);
  for (int k = 0; k < 2; ++k) {
    if (code == BuiltinOperator::SUB && k == 1)
      break;
    const int32_t x = affine.inputs[k], c = affine.inputs[1 - k];
    if (!e.validTensor(x) || !isFloat32Activation(e.tensor(x)) || !sameContract(e.tensor(x), e.tensor(xp)))
      continue;
    const auto &xshape = e.tensor(x).shape;
    const auto &xsignature = e.tensor(x).shape_signature;
    if (xshape.empty() || (!xsignature.empty() && xsignature.back() < 0))
      continue; // the channels must be static (other dims may be dynamic)
    int64_t channels = depthwise ? xshape.back() : in_channels;
    auto cv = channelVector(e, c, xshape, channels);
    if (!cv)
      continue;
    if (code == BuiltinOperator::MUL) {
      std::vector<float> scaled;
      if (fc)
        scaled = scaledWeights(e, w, 1, *cv);
      else if (depthwise) {
        if (channels <= 0 || l->out_channels % channels != 0)
          continue;
        scaled = scaledWeights(e, w, 3, *cv, l->out_channels / channels);
      } else
        scaled = scaledWeights(e, w, 3, *cv);
      setWeights(e, l_op, *l, std::move(scaled), e.op(l_op).outputs[0]);
    } else {
      std::vector<float> weights = *constantAsFloats(e.model(), e.tensor(w));
      std::vector<float> bias = biasValues(e, l_op, *l);
      const float sign = code == BuiltinOperator::ADD ? 1.0f : -1.0f;
      for (int64_t o = 0; o < l->out_channels; ++o) {
        double acc = 0.0;
        for (int64_t i = 0; i < in_channels; ++i)
          acc += static_cast<double>(weights[o * in_channels + i]) * (*cv)[i];
        bias[o] += sign * static_cast<float>(acc);
      }
      setBias(e, l_op, *l, bias, e.op(l_op).outputs[0]);
    }
    e.setInput(l_op, l->data_slot, x);
    return true;
  }
  return false;
}

class FuseLinearOps final : public CirclePass {
public:
  explicit FuseLinearOps(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [](SubgraphEditor &e, int i) {
      switch (e.code(i)) {
      case BuiltinOperator::ADD:
      case BuiltinOperator::SUB:
      case BuiltinOperator::MUL: return fuseAfter(e, i);
      case BuiltinOperator::CONV_2D:
      case BuiltinOperator::DEPTHWISE_CONV_2D:
      case BuiltinOperator::FULLY_CONNECTED: return fuseBefore(e, i);
      default: return false;
      }
    });
  }
};

} // namespace

void registerFuseLinearOps(Registrar &r) {
  registerCirclePass<FuseLinearOps>(
      r, "fuse-linear-ops",
      "fold per-channel constant MUL/ADD/SUB after (and MUL, or ADD/SUB for FULLY_CONNECTED, before) CONV_2D, "
      "DEPTHWISE_CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED into weights and bias");
}

} // namespace tico::circle_passes
