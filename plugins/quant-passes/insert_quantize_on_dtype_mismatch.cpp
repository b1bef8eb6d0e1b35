// insert-quantize-on-dtype-mismatch (the original's InsertQuantizeOnDtypeMismatch): a quantized
// op whose result has another quantized type than its operands (uint8 activations in, int16 out
// or the reverse, e.g. where a program switches precision between layers) gets a requantize, so
// that every quantized Circle operator reads and writes one type, as Circle's type inference
// and the integer kernels of ADD, CONCATENATION, SOFTMAX, ... require:
//
//   %y: i16 {q: P16} = aten::linear(%x: u8, ...)    %y: u8 {q: P8} = aten::linear(%x: u8, ...)
//                                               ->  %y_requantize: i16 {q: P16} = quantize_per_tensor(%y, P16)
//
// * Compute ops (linear, circle convolutions, add, sub, mul, cat, mm, bmm, softmax, sigmoid,
//   tanh, mean) compute in their operands' type: the result takes that type, with parameters
//   covering the real range the result's parameters cover (int16 -> uint8: [-s*32767, s*32767]
//   in 255 steps, zero point in the middle; uint8 -> int16: symmetric over the larger side; the
//   original's two conversions, applied to any pair of uint8 / int8 / int16), and a requantize
//   to the program's type and parameters follows. The original handles uint8 -> int16 for
//   linear, int16 -> uint8 for add/mul/cat and both for bmm, and refuses other pairs; tico
//   takes any pair.
// * Data movement and pools keep values and parameters: from a wider type (int16 -> 8 bit) the
//   requantize goes before the op (the original's choice for permute/reshape: the op then moves
//   the smaller tensor); otherwise the op's result takes its input's type and parameters and
//   the requantize follows.
// * Operands of different quantized types (a uint8 and an int16 input of one add) are an error
//   naming the node and the tensors: no quantized kernel reads mixed types.
// Only per-tensor results are rewritten; weights (the second operand of linear / convolutions)
// keep their own type.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/driver.h"

#include <algorithm>
#include <cmath>

namespace tico::quant_passes {
namespace {

const std::string kPass = "insert-quantize-on-dtype-mismatch";

bool isPlainQuantized(DType t) { return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16; }

// Parameters of type `to` covering the real range that `from` (of type `from_t`) covers.
QuantParams convertParams(const QuantParams &from, DType from_t, DType to) {
  const double s = from.scale[0];
  const int64_t zp = from.zero_point[0];
  double lo, hi;
  if (qmin(from_t) < 0 && zp == 0) { // symmetric: the original's +-s * qmax
    hi = s * static_cast<double>(qmax(from_t));
    lo = -hi;
  } else {
    lo = s * static_cast<double>(qmin(from_t) - zp);
    hi = s * static_cast<double>(qmax(from_t) - zp);
  }
  QuantParams out;
  if (qmin(to) < 0) {
    out.scale = {static_cast<float>(std::max(std::fabs(lo), std::fabs(hi)) / static_cast<double>(qmax(to)))};
    out.zero_point = {0};
  } else {
    const double scale = (hi - lo) / static_cast<double>(qmax(to) - qmin(to));
    const double z = std::round(static_cast<double>(qmin(to)) - lo / scale);
    out.scale = {static_cast<float>(scale)};
    out.zero_point = {static_cast<int64_t>(std::clamp(z, static_cast<double>(qmin(to)), static_cast<double>(qmax(to))))};
  }
  return out;
}

Node *nextNode(const Graph &graph, const Node &node) {
  const auto &nodes = graph.nodes();
  for (auto it = nodes.begin(); it != nodes.end(); ++it)
    if (it->get() == &node)
      return std::next(it) == nodes.end() ? nullptr : std::next(it)->get();
  return nullptr;
}

Value *makeQuantize(rewrite::Builder &b, Value *x, DType t, const QuantParams &q, const Shape &shape) {
  Value *out = b.make("quantized_decomposed::quantize_per_tensor.default",
                      std::vector<Argument>{Argument::value(x), Argument::real(q.scale[0]), Argument::integer(q.zero_point[0]),
                                            Argument::integer(qmin(t)), Argument::integer(qmax(t)),
                                            Argument::scalarType(t)});
  out->setType(t, shape);
  out->setQuant(q);
  return out;
}

// The result `y` is computed as `t` with parameters `q`; a requantize to its former type and
// parameters follows, and every reader (graph outputs included) reads the requantize.
void requantizeAfter(Node &node, rewrite::Rewriter &rewriter, DType t, const QuantParams &q) {
  Value *y = node.output();
  const DType out_t = y->dtype();
  const QuantParams out_q = *y->quant();
  rewrite::Builder b = rewriter.builder(nextNode(rewriter.graph(), node), y->name() + "_requantize");
  y->setType(t, y->shape());
  y->setQuant(q);
  Value *requantize = makeQuantize(b, y, out_t, out_q, y->shape());
  rewriter.replaceAllUsesWith(y, requantize);
  rewriter.setArg(requantize->producer(), 0, Argument::value(y));
  for (Node *user : requantize->users())
    rewriter.revisit(user);
}

bool insertOnMismatch(Node &node, rewrite::Rewriter &rewriter) {
  auto inputs = quantizedDataInputs(node);
  if (!inputs || node.opId() == ops::aten::relu_default) // relu: propagate-qparam-backward's requantize (not a root)
    return false;
  Value *y = node.output();
  if (!y->isQuantized() || !y->quant()->isPerTensor() || !isPlainQuantized(y->dtype()))
    return false;
  // The activations the kernel reads (not the weight of a linear / convolution).
  std::vector<Value *> activations = *inputs;
  if (isQuantizedCompute(node) || node.opId() == ops::circle::rms_norm_default)
    activations.resize(1); // the weight / gamma has its own type
  for (const Value *v : activations)
    if (!v->isQuantized() || !isPlainQuantized(v->dtype()))
      return false;
  const Value *first = activations.front();
  for (const Value *v : activations)
    if (v->dtype() != first->dtype())
      throw nodeError(kPass, node, "reads '" + first->name() + "' as " + std::string(dtypeName(first->dtype())) +
                                       " and '" + v->name() + "' as " + std::string(dtypeName(v->dtype())) +
                                       "; the quantized kernel reads operands of one type (quantize one of them "
                                       "to the other's type in the program)");
  const DType in_t = first->dtype();
  if (in_t == y->dtype())
    return false;
  if (keepsInputParams(node)) {
    if (!first->quant()->isPerTensor())
      return false;
    if (qmax(in_t) > qmax(y->dtype())) {
      // Requantize the input to the result's type and parameters; the op then moves those.
      Value *x = node.input(0);
      rewrite::Builder b = rewriter.builder(&node, x->name() + "_requantize");
      Value *requantize = makeQuantize(b, x, y->dtype(), *y->quant(), x->shape());
      rewriter.setArg(&node, 0, Argument::value(requantize));
      return true;
    }
    requantizeAfter(node, rewriter, in_t, *first->quant());
    return true;
  }
  requantizeAfter(node, rewriter, in_t, convertParams(*y->quant(), y->dtype(), in_t));
  return true;
}

} // namespace

void registerInsertQuantizeOnDtypeMismatch(Registrar &r) {
  namespace aten = tico::ops::aten;
  namespace cops = tico::ops::circle;
  rewrite::DriverConfig config;
  config.traversal = rewrite::Traversal::Sweep;
  std::vector<OpKey> roots = quantizedComputeRoots();
  for (const OpRef *op : {&aten::add_Tensor, &aten::sub_Tensor, &aten::mul_Tensor, &aten::cat_default, &aten::mm_default,
                        &aten::bmm_default, &aten::softmax_int, &aten::_softmax_default, &aten::sigmoid_default,
                        &aten::tanh_default, &aten::mean_dim, &aten::neg_default, &cops::rms_norm_default})
    roots.push_back(op->key());
  for (const std::vector<OpKey> &family : {dataMovementRoots(), quantizedPoolRoots()})
    roots.insert(roots.end(), family.begin(), family.end());
  r.addPass(rewrite::patternPassSpec(
      kPass,
      "Requantize where a quantized op's result type differs from its operands' (uint8 <-> int16) "
      "(InsertQuantizeOnDtypeMismatch)",
      roots, insertOnMismatch, config));
}

} // namespace tico::quant_passes
