// decompose-fake-quantize (the original's DecomposeFakeQuantize and
// DecomposeFakeQuantizeTensorQParams): a fake-quantize node becomes the quantize/dequantize
// pair of the quantized_decomposed namespace, whose quantized tensor between the two is what
// the quantization passes after it turn into a quantized Circle tensor.
//
//   fake_quantize_per_tensor_affine(x, s, zp, lo, hi)
//     -> dequantize_per_tensor(quantize_per_tensor(x, s, zp, lo, hi, T), s, zp, lo, hi, T)
//   fake_quantize_per_channel_affine(x, S, ZP, axis, lo, hi)
//     -> dequantize_per_channel(quantize_per_channel(x, S, ZP, axis, lo, hi, T), ...)
//
// T is the storage dtype of the range [lo, hi] (storageDTypeForRange); a range without one is
// an error naming the node. The tensor-qparams forms read their scale and zero point as numbers
// when they are constants (possibly behind lift_fresh_copy/detach/clone/to/view, or an
// aten::full of one element: how torch.export records torch.tensor(...) constants and the
// original's observers' cached qparams):
// the scalar quantize_per_tensor.default then carries them, as in the original. Otherwise they
// stay tensors (quantize_per_tensor.tensor), which the original could not convert at all.
// The _cachemask forms (what run_decompositions() makes of fake-quantize) are decomposed when
// their mask output is unused; fake_quant_enabled == 0 makes the node the identity.
// A scale or zero point the conversion knows is checked as fake-quantize checks it (scale
// positive and finite, zero point inside the range); a bad one is an error naming the node.
// Only float32 inputs are decomposed: the decomposed ops produce float32, fake-quantize keeps
// the input's dtype.
#include "mx_quant.h"
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ir/graph.h"
#include "tico/ops/torch_ops.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/driver.h"
#include "tico/rewrite/match.h"
#include "tico/support/error.h"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace tico::quant_passes {
namespace {

namespace aten = tico::ops::aten;
namespace qd = tico::ops::quantized_decomposed;

Error nodeError(const Node &node, const std::string &message) {
  return Error("decompose-fake-quantize: node '" + node.name() + "' (" + node.op().str() + "): " + message);
}

const Argument &argNamed(const Node &node, std::string_view name) {
  const Argument *a = node.findArg(name);
  if (a == nullptr)
    throw nodeError(node, "argument '" + std::string(name) + "' is missing");
  return *a;
}

int64_t staticInt(const Node &node, std::string_view name) {
  const Argument &a = argNamed(node, name);
  if (!a.isInt())
    throw nodeError(node, "'" + std::string(name) + "' must be an integer known at conversion time, got " +
                              Argument::kindName(a.kind()));
  return a.asInt();
}

std::optional<double> onlyElement(const TensorData &data) {
  if (data.numel() != 1)
    return std::nullopt;
  auto all = constantElements(data);
  return all ? std::optional<double>(all->front()) : std::nullopt;
}

// `v` as a one-element tensor of `dtype` holds it (what a dtype conversion makes of it).
std::optional<double> convertedTo(DType dtype, double v) {
  switch (dtype) {
  case DType::Float32: return static_cast<double>(static_cast<float>(v));
  case DType::Float64: return v;
  case DType::Int64:
  case DType::Int32:
  case DType::Int16:
  case DType::Int8:
  case DType::UInt8: return std::trunc(v);
  default: return std::nullopt;
  }
}

// Ops that hand a one-element tensor's value on (converted to their result's dtype): the
// constant wrappers torch.export records around torch.tensor(...) constants, and the dtype and
// device moves the original's observers put on their cached scale and zero point.
bool passesValueOn(OpId op) {
  return op == aten::lift_fresh_copy_default || op == aten::detach_default || op == aten::detach__default ||
         op == aten::clone_default || op == aten::alias_default || op == aten::to_dtype_layout ||
         op == aten::to_device || op == aten::to_dtype || op == aten::_to_copy_default || op == aten::view_default ||
         op == aten::reshape_default;
}

// The number a one-element tensor value holds when the conversion already knows it.
std::optional<double> knownScalar(const Value *value) {
  if (value == nullptr || !value->isTensor())
    return std::nullopt;
  if (value->isConstant()) {
    std::optional<double> v = onlyElement(*value->constant());
    return v ? convertedTo(value->dtype(), *v) : std::nullopt;
  }
  const Node *producer = value->producer();
  if (producer == nullptr || producer->numArgs() == 0)
    return std::nullopt;
  std::optional<double> v;
  if (passesValueOn(producer->opId()) && producer->arg(0).isValue()) {
    v = knownScalar(producer->arg(0).asValue());
  } else if (producer->opId() == aten::full_default) {
    const Argument *size = producer->findArg("size");
    const Argument *fill = producer->findArg("fill_value");
    if (size == nullptr || fill == nullptr || !size->isIntList() || !fill->isNumber())
      return std::nullopt;
    for (int64_t d : size->asInts())
      if (d != 1)
        return std::nullopt;
    v = fill->asDouble();
  }
  return v ? convertedTo(value->dtype(), *v) : std::nullopt;
}

bool decomposable(const Graph &graph, const Node &node) {
  const Argument &self = node.arg(0);
  if (!self.isValue() || !self.asValue()->isTensor() || self.asValue()->dtype() != DType::Float32)
    return false;
  // A cachemask form whose mask is read computes something the pair does not give.
  return node.numOutputs() < 2 || !rewrite::isUsed(graph, node.output(1));
}

DType storageDType(const Node &node, int64_t lo, int64_t hi) {
  if (auto dtype = storageDTypeForRange(lo, hi))
    return *dtype;
  throw nodeError(node, "quantization range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            "] has no storage dtype; supported ranges: [0, 255] and [0, 15] (uint8), [-128, 127], "
                            "[-127, 127] and [-8, 7] (int8), [-32768, 32767] and [-32767, 32767] (int16), "
                            "[0, 65535] (uint16)");
}

std::string number(double v) {
  std::ostringstream text;
  text << v;
  return text.str();
}

// What fake-quantize itself requires, checked where the conversion knows the values: a scale
// that is a positive finite number, a zero point inside the range.
void checkQParams(const Node &node, const std::vector<double> &scales, const std::vector<double> &zero_points,
                  int64_t lo, int64_t hi) {
  for (double s : scales)
    if (!(std::isfinite(s) && s > 0))
      throw nodeError(node, "scale " + number(s) + " is not a positive finite number");
  for (double z : zero_points)
    if (z < static_cast<double>(lo) || z > static_cast<double>(hi))
      throw nodeError(node, "zero point " + number(z) + " is outside the quantization range [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "]");
}

// The values of a qparam argument: the number it is, or a constant tensor's elements.
std::vector<double> knownValues(const Argument &arg) {
  if (arg.isNumber())
    return {arg.asDouble()};
  if (arg.isValue() && arg.asValue()->isConstant())
    if (auto all = constantElements(*arg.asValue()->constant()))
      return *all;
  return {};
}

// Replaces `node` (and its unused mask output, if any) by `replacement`.
void replaceFakeQuantize(Node &node, rewrite::Rewriter &rewriter, Value *replacement) {
  std::vector<Value *> replacements(node.numOutputs(), nullptr);
  replacements[0] = replacement;
  rewriter.replaceNode(&node, replacements);
}

bool decomposePerTensor(Node &node, rewrite::Rewriter &rewriter) {
  if (!decomposable(rewriter.graph(), node))
    return false;
  const int64_t lo = staticInt(node, "quant_min");
  const int64_t hi = staticInt(node, "quant_max");
  const DType dtype = storageDType(node, lo, hi);
  Argument scale = argNamed(node, "scale");
  Argument zero_point = argNamed(node, "zero_point");
  const bool tensor_qparams = scale.isValue() || zero_point.isValue();

  if (const Argument *enabled = node.findArg("fake_quant_enabled")) {
    std::optional<double> on = enabled->isValue() ? knownScalar(enabled->asValue()) : std::nullopt;
    if (!on)
      return false; // decided at run time: not a fixed quantization
    if (*on == 0) {   // fake quantization switched off: the output is the input
      replaceFakeQuantize(node, rewriter, node.arg(0).asValue());
      return true;
    }
  }
  const OpRef *quantize = &qd::quantize_per_tensor_default;
  const OpRef *dequantize = &qd::dequantize_per_tensor_default;
  if (tensor_qparams) {
    std::optional<double> s = scale.isValue() ? knownScalar(scale.asValue()) : std::nullopt;
    std::optional<double> z = zero_point.isValue() ? knownScalar(zero_point.asValue()) : std::nullopt;
    if (s && z) {
      scale = Argument::real(*s);
      zero_point = Argument::integer(static_cast<int64_t>(*z));
    } else {
      quantize = &qd::quantize_per_tensor_tensor;
      dequantize = &qd::dequantize_per_tensor_tensor;
    }
  }
  checkQParams(node, knownValues(scale), knownValues(zero_point), lo, hi);
  rewrite::Builder b = rewriter.builderFor(node);
  Value *q = b.make(std::string(*quantize), std::vector<Argument>{node.arg(0), scale, zero_point, Argument::integer(lo),
                                                                    Argument::integer(hi), Argument::scalarType(dtype)});
  Value *dq = b.make(std::string(*dequantize), std::vector<Argument>{Argument::value(q), scale, zero_point,
                                                                       Argument::integer(lo), Argument::integer(hi),
                                                                       Argument::scalarType(dtype)});
  replaceFakeQuantize(node, rewriter, dq);
  return true;
}

bool decomposePerChannel(Node &node, rewrite::Rewriter &rewriter) {
  if (!decomposable(rewriter.graph(), node))
    return false;
  const int64_t lo = staticInt(node, "quant_min");
  const int64_t hi = staticInt(node, "quant_max");
  const DType dtype = storageDType(node, lo, hi);
  const Argument &scale = argNamed(node, "scale");
  const Argument &zero_point = argNamed(node, "zero_point");
  const Argument axis = Argument::integer(staticInt(node, "axis"));
  checkQParams(node, knownValues(scale), knownValues(zero_point), lo, hi);
  rewrite::Builder b = rewriter.builderFor(node);
  Value *q = b.make(std::string(qd::quantize_per_channel_default),
                    std::vector<Argument>{node.arg(0), scale, zero_point, axis, Argument::integer(lo),
                                          Argument::integer(hi), Argument::scalarType(dtype)});
  Value *dq = b.make(std::string(qd::dequantize_per_channel_default),
                     std::vector<Argument>{Argument::value(q), scale, zero_point, axis, Argument::integer(lo),
                                           Argument::integer(hi), Argument::scalarType(dtype)});
  replaceFakeQuantize(node, rewriter, dq);
  return true;
}

} // namespace

void registerDecomposeFakeQuantize(Registrar &r) {
  using rewrite::makePattern;
  r.addPass({"decompose-fake-quantize",
             "Rewrite fake_quantize_per_tensor/per_channel_affine (and their tensor-qparams and cachemask forms) "
             "as quantized_decomposed quantize + dequantize, circle_custom::mx_fake_quantize as quantize_mx + "
             "dequantize_mx",
             {},
             [](const Options &) {
               std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
               patterns.push_back(makePattern({aten::fake_quantize_per_tensor_affine_default.key(),
                                               aten::fake_quantize_per_tensor_affine_tensor_qparams.key(),
                                               aten::fake_quantize_per_tensor_affine_cachemask_default.key(),
                                               aten::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams_default.key()},
                                              decomposePerTensor));
               patterns.push_back(makePattern({aten::fake_quantize_per_channel_affine_default.key(),
                                               aten::fake_quantize_per_channel_affine_cachemask_default.key()},
                                              decomposePerChannel));
               patterns.push_back(makeDecomposeMxPattern()); // circle_custom::mx_fake_quantize (mx_quant.cpp)
               rewrite::DriverConfig config;
               // Graph order: the order of the rewrites decides node positions, hence output bytes.
               config.traversal = rewrite::Traversal::Sweep;
               // The lift_fresh_copy/detach chains of qparams read as numbers.
               config.erase_dead = true;
               return rewrite::patternPass(std::move(patterns), config);
             }});
}

} // namespace tico::quant_passes
