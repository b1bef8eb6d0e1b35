// Shared helpers of the conversion-time quantization passes (declared in quant_support.h).
#include "quant_support.h"

#include "quant_passes.h"
#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace tico::quant_passes {

namespace aten = tico::ops::aten;
namespace cops = tico::ops::circle;

DType QNodeParams::storage() const {
  if (quant_min == 0 && quant_max == 15)
    return DType::UInt4;
  if (quant_min == -8 && quant_max == 7)
    return DType::Int4;
  return dtype;
}

static bool inQuantizedDecomposed(const Node &node, std::string_view a, std::string_view b) {
  const OpKey &op = node.op();
  return op.ns == "quantized_decomposed" && (op.name == a || op.name == b);
}

bool isQuantizeNode(const Node &node) {
  return inQuantizedDecomposed(node, "quantize_per_tensor", "quantize_per_channel");
}

bool isDequantizeNode(const Node &node) {
  return inQuantizedDecomposed(node, "dequantize_per_tensor", "dequantize_per_channel");
}

std::string number(double v) {
  std::ostringstream text;
  text << v;
  return text.str();
}

Error nodeError(const std::string &pass, const Node &node, const std::string &message) {
  return Error(pass + ": node '" + node.name() + "' (" + node.op().str() + "): " + message);
}

std::optional<std::vector<double>> constantElements(const TensorData &data) {
  const std::vector<std::byte> bytes = data.contiguousBytes();
  const std::size_t count = static_cast<std::size_t>(data.numel());
  std::vector<double> out(count);
  auto read = [&]<typename T>(T) {
    for (std::size_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      out[i] = static_cast<double>(v);
    }
    return std::optional<std::vector<double>>(std::move(out));
  };
  switch (data.dtype) {
  case DType::Float32: return read(float{});
  case DType::Float64: return read(double{});
  case DType::Int64: return read(int64_t{});
  case DType::Int32: return read(int32_t{});
  case DType::Int16: return read(int16_t{});
  case DType::Int8:
  case DType::Int4: return read(int8_t{});
  case DType::UInt8:
  case DType::UInt4:
  case DType::Bool: return read(uint8_t{});
  default: return std::nullopt;
  }
}

namespace {

std::string tensorName(const Node &node) {
  const Argument &a = node.arg(0);
  return a.isValue() ? "'" + a.asValue()->name() + "'" : "?";
}

// The elements of a per-channel qparam argument (a constant tensor).
std::optional<std::vector<double>> channelValues(const Argument &arg) {
  if (!arg.isValue() || !arg.asValue()->isConstant())
    return std::nullopt;
  return constantElements(*arg.asValue()->constant());
}

} // namespace

std::optional<QNodeParams> knownQNodeParams(const Node &node, const std::string &pass) {
  if (node.op().overload != "default" || node.numArgs() == 0 || !node.arg(0).isValue())
    return std::nullopt;
  const bool per_channel = node.op().name.ends_with("per_channel");
  const Argument *lo = node.findArg("quant_min");
  const Argument *hi = node.findArg("quant_max");
  const Argument *dtype = node.findArg("dtype");
  if (lo == nullptr || hi == nullptr || dtype == nullptr || !lo->isInt() || !hi->isInt() ||
      dtype->kind() != Argument::Kind::ScalarType)
    return std::nullopt;
  QNodeParams p;
  p.dtype = dtype->asScalarType();
  p.quant_min = lo->asInt();
  p.quant_max = hi->asInt();
  const Value *input = node.arg(0).asValue();
  std::vector<double> scales, zero_points;
  if (per_channel) {
    const Argument *axis = node.findArg("axis");
    auto s = channelValues(node.arg("scales"));
    auto z = channelValues(node.arg("zero_points"));
    if (axis == nullptr || !axis->isInt() || !s || !z)
      return std::nullopt;
    int64_t a = axis->asInt();
    const int64_t rank = input->rank();
    if (a < -rank || a >= rank)
      throw nodeError(pass, node, "per-channel axis " + std::to_string(a) + " is out of range for tensor " +
                                      tensorName(node) + " of rank " + std::to_string(rank));
    if (a < 0)
      a += rank;
    const Dim &dim = input->shape()[static_cast<std::size_t>(a)];
    if (s->size() != z->size() || (!dim.isSymbolic() && static_cast<int64_t>(s->size()) != dim.value()))
      throw nodeError(pass, node, "tensor " + tensorName(node) + " has " +
                                      (dim.isSymbolic() ? std::string("a symbolic number of") : std::to_string(dim.value())) +
                                      " channels along axis " + std::to_string(a) + ", but " + std::to_string(s->size()) +
                                      " scales and " + std::to_string(z->size()) + " zero points");
    p.params.axis = a;
    scales = *s;
    zero_points = *z;
  } else {
    const Argument *s = node.findArg("scale");
    const Argument *z = node.findArg("zero_point");
    if (s == nullptr || z == nullptr || !s->isNumber() || !z->isNumber())
      return std::nullopt;
    scales = {s->asDouble()};
    zero_points = {z->asDouble()};
  }
  for (double s : scales) {
    if (!(std::isfinite(s) && s > 0))
      throw nodeError(pass, node, "scale " + number(s) + " of tensor " + tensorName(node) +
                                      " is not a positive finite number");
    if (!std::isfinite(static_cast<float>(s)) || static_cast<float>(s) <= 0.0f)
      throw nodeError(pass, node, "scale " + number(s) + " of tensor " + tensorName(node) +
                                      " is not a positive float32 number");
    p.params.scale.push_back(static_cast<float>(s));
  }
  for (double z : zero_points) {
    if (!(z >= static_cast<double>(p.quant_min) && z <= static_cast<double>(p.quant_max)) || z != std::trunc(z))
      throw nodeError(pass, node, "zero point " + number(z) + " of tensor " + tensorName(node) +
                                      " is outside the quantization range [" + std::to_string(p.quant_min) + ", " +
                                      std::to_string(p.quant_max) + "]");
    p.params.zero_point.push_back(static_cast<int64_t>(z));
  }
  auto range_dtype = storageDTypeForRange(p.quant_min, p.quant_max);
  if (!range_dtype || *range_dtype != p.dtype)
    throw nodeError(pass, node, "quantization range [" + std::to_string(p.quant_min) + ", " +
                                    std::to_string(p.quant_max) + "] of tensor " + tensorName(node) +
                                    " does not fit its storage dtype " + std::string(dtypeName(p.dtype)));
  if (p.dtype == DType::UInt16)
    throw nodeError(pass, node, "uint16 quantization (tensor " + tensorName(node) +
                                    ") has no Circle tensor type");
  return p;
}

namespace {

// The one list of each op family the passes root on (isDataMovement & co. and the passes'
// pattern roots read them, so that a new member reaches every pass at once).
const OpRef *const kDataMovement[] = {&aten::permute_default,     &aten::view_default,     &aten::reshape_default,
                                      &aten::_unsafe_view_default, &aten::squeeze_dim,      &aten::squeeze_dims,
                                      &aten::unsqueeze_default,   &aten::clone_default,    &aten::flatten_using_ints,
                                      &aten::transpose_int,       &aten::slice_Tensor};
const OpRef *const kQuantizedCompute[] = {&aten::linear_default,           &cops::conv2d_default,
                                          &cops::conv2d_padding,           &cops::depthwise_conv2d_default,
                                          &cops::depthwise_conv2d_padding, &cops::transpose_conv_default};
const OpRef *const kQuantizedPools[] = {&aten::max_pool2d_default, &aten::avg_pool2d_default,
                                        &cops::maxpool2d_default, &cops::avgpool2d_default};

template <std::size_t N> bool inList(const Node &node, const OpRef *const (&list)[N]) {
  const OpId op = node.opId();
  return std::any_of(std::begin(list), std::end(list), [op](const OpRef *ref) { return op == *ref; });
}

template <std::size_t N> std::vector<OpKey> keysOf(const OpRef *const (&list)[N]) {
  std::vector<OpKey> keys;
  for (const OpRef *ref : list)
    keys.push_back(ref->key());
  return keys;
}

} // namespace

bool isDataMovement(const Node &node) { return inList(node, kDataMovement); }
std::vector<OpKey> dataMovementRoots() { return keysOf(kDataMovement); }
bool isQuantizedCompute(const Node &node) { return inList(node, kQuantizedCompute); }
std::vector<OpKey> quantizedComputeRoots() { return keysOf(kQuantizedCompute); }
bool isQuantizedPool(const Node &node) { return inList(node, kQuantizedPools); }
std::vector<OpKey> quantizedPoolRoots() { return keysOf(kQuantizedPools); }

namespace {

bool isNoneOr(const Node &node, std::string_view name, double value) {
  const Argument *a = node.findArg(name);
  return a == nullptr || a->isNone() || (a->isNumber() && a->asDouble() == value);
}

bool isNoneArg(const Node &node, std::string_view name) {
  const Argument *a = node.findArg(name);
  return a == nullptr || a->isNone();
}

bool isFalseArg(const Node &node, std::string_view name) {
  const Argument *a = node.findArg(name);
  return a == nullptr || (a->kind() == Argument::Kind::Bool && !a->asBool());
}

// Value arguments 0..count-1, or nullopt when one of them is not a tensor value.
std::optional<std::vector<Value *>> leadingValues(const Node &node, std::size_t count) {
  if (node.numArgs() < count)
    return std::nullopt;
  std::vector<Value *> out;
  for (std::size_t i = 0; i < count; ++i) {
    if (!node.arg(i).isValue() || !node.arg(i).asValue()->isTensor())
      return std::nullopt;
    out.push_back(node.arg(i).asValue());
  }
  return out;
}

// RMS_NORM's gamma when it is a float32 constant (its quantized kernel reads it as it is), else null.
const Value *floatConstantGamma(const Node &node) {
  if (node.opId() != cops::rms_norm_default || node.numArgs() < 2 || !node.arg(1).isValue())
    return nullptr;
  const Value *gamma = node.input(1);
  return gamma->isConstant() && gamma->dtype() == DType::Float32 ? gamma : nullptr;
}

// softmax over the last dim (Circle's SOFTMAX has no axis), no dtype conversion.
bool lastDimSoftmax(const Node &node) {
  if (node.numArgs() < 2 || !node.arg(0).isValue() || !node.arg(1).isInt())
    return false;
  const int64_t rank = node.input(0)->rank();
  int64_t dim = node.arg(1).asInt();
  if (dim < 0)
    dim += rank;
  return dim == rank - 1 && isNoneArg(node, "dtype") && isFalseArg(node, "half_to_float");
}

} // namespace

std::optional<std::vector<Value *>> quantizedDataInputs(const Node &node) {
  if (node.numOutputs() != 1)
    return std::nullopt;
  const OpId op = node.opId();
  if (isDataMovement(node) || op == aten::relu_default || isQuantizedPool(node) || op == aten::sigmoid_default ||
      op == aten::tanh_default || op == aten::neg_default)
    return leadingValues(node, 1);
  if (op == cops::rms_norm_default) {
    // x, and gamma unless it is absent or a float constant (the kernel takes a float gamma).
    const bool no_gamma = node.numArgs() < 2 || node.arg(1).isNone();
    return leadingValues(node, no_gamma || floatConstantGamma(node) ? 1 : 2);
  }
  if (isQuantizedCompute(node) || op == aten::mul_Tensor || op == aten::mm_default || op == aten::bmm_default)
    return leadingValues(node, 2);
  if (op == aten::add_Tensor || op == aten::sub_Tensor)
    return isNoneOr(node, "alpha", 1.0) ? leadingValues(node, 2) : std::nullopt;
  if (op == aten::softmax_int || op == aten::_softmax_default)
    return lastDimSoftmax(node) ? leadingValues(node, 1) : std::nullopt;
  if (op == aten::mean_dim)
    return isNoneArg(node, "dtype") ? leadingValues(node, 1) : std::nullopt;
  if (op == aten::cat_default) {
    if (node.numArgs() == 0 || node.arg(0).kind() != Argument::Kind::ValueList)
      return std::nullopt;
    std::vector<Value *> inputs = node.arg(0).asValues();
    if (inputs.empty())
      return std::nullopt;
    for (const Value *v : inputs)
      if (v == nullptr || !v->isTensor())
        return std::nullopt;
    return inputs;
  }
  return std::nullopt;
}

bool takesFloatConstant(const Node &node, const Value *v) {
  return v != nullptr && floatConstantGamma(node) == v && node.input(0) != v;
}

bool keepsInputParams(const Node &node) { return isDataMovement(node) || isQuantizedPool(node); }

namespace {

constexpr int kMaxDepth = 256;
// Values one source (or sink) query may visit: ops with two data inputs (a chain of residual adds with
// no quantize/dequantize in between) would otherwise make the backward walk exponential. A
// query that runs out answers "not a source" / "not a sink" (the op stays in float; strict
// check-missing-qparams then names it).
constexpr int kMaxVisits = 4096;

bool isKnownDequantize(const Node &node) { return isDequantizeNode(node) && node.op().overload == "default"; }

// Whether data input `index` of `node` may be quantized per channel: the weight of a linear /
// convolution, and what data movement passes on (a permuted weight). Every other quantized
// kernel takes per-tensor operands.
bool perChannelAllowed(const Node &node, std::size_t index) {
  return (index == 1 && (isQuantizedCompute(node) || node.opId() == cops::rms_norm_default)) || isDataMovement(node);
}

bool sourceAt(const Value *v, bool per_tensor, int depth, int &budget) {
  if (v == nullptr || !v->isTensor() || --budget < 0)
    return false;
  if (v->isQuantized())
    return !per_tensor || v->quant()->isPerTensor();
  const Node *p = v->producer();
  if (p == nullptr || depth > kMaxDepth)
    return false;
  if (isKnownDequantize(*p))
    return !per_tensor || p->op().name == "dequantize_per_tensor";
  auto inputs = quantizedDataInputs(*p);
  if (!inputs)
    return false;
  for (std::size_t i = 0; i < inputs->size(); ++i)
    if (!sourceAt((*inputs)[i], isDataMovement(*p) ? per_tensor : !perChannelAllowed(*p, i), depth + 1, budget))
      return false;
  return true;
}

bool sinkAt(const Graph &graph, const Value *v, int depth, int &budget) {
  if (v->isQuantized())
    return true;
  if (--budget < 0 || depth > kMaxDepth || !v->hasUsers() || graph.isGraphOutput(v))
    return false;
  for (const Node *user : v->users()) {
    if (isQuantizeNode(*user) && user->op().overload == "default" && user->input(0) == v)
      continue;
    auto inputs = quantizedDataInputs(*user);
    if (!inputs || std::find(inputs->begin(), inputs->end(), v) == inputs->end() || !quantizableInputs(*user) ||
        !sinkAt(graph, user->output(), depth + 1, budget))
      return false;
  }
  return true;
}

} // namespace

bool quantizedSource(const Value *v) {
  int budget = kMaxVisits;
  return sourceAt(v, false, 0, budget);
}

bool quantizedSink(const Graph &graph, const Value *v) {
  int budget = kMaxVisits;
  return sinkAt(graph, v, 0, budget);
}

bool quantizableInputs(const Node &node) {
  auto inputs = quantizedDataInputs(node);
  if (!inputs)
    return false;
  int budget = kMaxVisits;
  for (std::size_t i = 0; i < inputs->size(); ++i)
    if (!sourceAt((*inputs)[i], !perChannelAllowed(node, i), 0, budget))
      return false;
  return true;
}

bool quantizableNode(const Graph &graph, const Node &node) {
  return quantizableInputs(node) && quantizedSink(graph, node.output());
}

std::optional<QuantParams> sourceParams(const Value *v) {
  if (v == nullptr)
    return std::nullopt;
  if (v->isQuantized())
    return *v->quant();
  const Node *p = v->producer();
  if (p == nullptr)
    return std::nullopt;
  if (isKnownDequantize(*p)) {
    if (auto q = knownQNodeParams(*p, "fold-quant-ops"))
      return q->params;
    return std::nullopt;
  }
  if (keepsInputParams(*p) && p->numArgs() > 0 && p->arg(0).isValue())
    if (auto q = sourceParams(p->input(0)); q && q->isPerTensor())
      return q;
  return std::nullopt;
}

std::optional<std::size_t> argIndex(const Node &node, std::string_view name) {
  for (std::size_t i = 0; i < node.numArgs(); ++i)
    if (node.args()[i].name == name)
      return i;
  return std::nullopt;
}

bool replaceUsesIn(rewrite::Rewriter &rewriter, Node &user, Value *from, Value *to) {
  bool changed = false;
  for (std::size_t i = 0; i < user.numArgs(); ++i) {
    const Argument &a = user.arg(i);
    if (a.isValue()) {
      if (a.asValue() == from) {
        rewriter.setArg(&user, i, Argument::value(to));
        changed = true;
      }
    } else if (a.kind() == Argument::Kind::ValueList) {
      std::vector<Value *> vs = a.asValues();
      bool hit = false;
      for (Value *&v : vs)
        if (v == from) {
          v = to;
          hit = true;
        }
      if (hit) {
        rewriter.setArg(&user, i, Argument::values(std::move(vs)));
        changed = true;
      }
    }
  }
  return changed;
}

std::string describe(const QuantParams &q, DType dtype) {
  std::ostringstream text;
  text << dtypeName(dtype) << " scale=[";
  for (std::size_t i = 0; i < q.scale.size() && i < 4; ++i)
    text << (i ? ", " : "") << q.scale[i];
  text << (q.scale.size() > 4 ? ", ...]" : "]") << " zp=[";
  for (std::size_t i = 0; i < q.zero_point.size() && i < 4; ++i)
    text << (i ? ", " : "") << q.zero_point[i];
  text << (q.zero_point.size() > 4 ? ", ...]" : "]");
  if (q.axis)
    text << " axis=" << *q.axis;
  return text.str();
}

} // namespace tico::quant_passes
