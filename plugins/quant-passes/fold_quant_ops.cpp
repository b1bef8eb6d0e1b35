// fold-quant-ops (the original's FoldQuantOps): quantize/dequantize pairs on activations become
// quantization parameters on the tensors between them.
//
//   %q = quantize(%v, s, zp, lo, hi, T)        %v: T {q: scale=[s], zp=[zp]} = op(...)
//   %d = dequantize(%q, s, zp, lo, hi, T)  ->  users of %d read %v
//
// * A quantize node whose input is the only result of an op the bundle quantizes (linear,
//   circle::conv2d / depthwise_conv2d, add/sub/mul, mm/bmm, cat, softmax, sigmoid, tanh, mean,
//   pools, data movement, relu when the range starts at the zero point: quantizedDataInputs)
//   and whose every user applies the same quantization is folded into that op: the op's result
//   becomes the quantized tensor (when that op's inputs are quantized or dequantized values:
//   quantizableInputs). Data movement and pools keep their input's parameters, so a quantize
//   with other ones after them is not folded. A quantize node whose input already is the
//   quantized tensor it would write (same dtype and parameters) is removed: its users read the
//   input. Any other quantize node stays (QUANTIZE in Circle: a float model input, or a
//   requantize of an already quantized tensor) and its result gets the parameters.
// * A dequantize node hands the quantized tensor to the users that take one: quantize nodes
//   (which then requantize) and the ops above when their operands and result end up quantized
//   (quantizableNode); others (a float op, a graph output) keep reading the dequantized value
//   (DEQUANTIZE in Circle).
// * A dequantize that reads a tensor with other parameters or another dtype than its quantize
//   wrote is an error naming both nodes and the tensor. Dequantize nodes of constants are
//   remove-weight-dequant's.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ops/torch_ops.h"
#include "tico/rewrite/driver.h"

#include <algorithm>

namespace tico::quant_passes {
namespace {

const std::string kPass = "fold-quant-ops";

std::vector<Node *> uniqueUsers(const Value *v) {
  std::vector<Node *> out;
  for (Node *u : v->users())
    if (std::find(out.begin(), out.end(), u) == out.end())
      out.push_back(u);
  return out;
}

bool sameQuantization(const QNodeParams &a, const QNodeParams &b) {
  return a.dtype == b.dtype && a.quant_min == b.quant_min && a.quant_max == b.quant_max && a.params == b.params;
}

// Whether quantize node `q` can make its input's producer compute the quantized tensor.
bool foldableIntoProducer(const Graph &graph, const Node &q, const QNodeParams &p) {
  const Value *v = q.input(0);
  const Node *producer = v->producer();
  if (!p.params.isPerTensor() || v->isConstant() || v->isQuantized() || v->dtype() != DType::Float32 ||
      producer == nullptr || producer->numOutputs() != 1 || graph.isGraphOutput(v))
    return false;
  const bool relu = producer->opId() == ops::aten::relu_default;
  if (!quantizableInputs(*producer))
    return false;
  // relu computes in the quantized domain only when the range starts at real 0.
  if (relu && p.params.zero_point[0] != p.quant_min)
    return false;
  // Data movement and pools keep their input's parameters: other ones make the quantize a
  // requantize after them.
  if (keepsInputParams(*producer))
    if (auto in = sourceParams(producer->input(0)); in && *in != p.params)
      return false;
  for (const Node *user : v->users()) {
    if (!isQuantizeNode(*user))
      return false;
    auto other = knownQNodeParams(*user, kPass);
    if (!other || !sameQuantization(*other, p))
      return false;
  }
  return true;
}

bool foldQuantize(Node &q, rewrite::Rewriter &rewriter) {
  auto p = knownQNodeParams(q, kPass);
  if (!p)
    return false;
  Value *v = q.input(0);
  if (foldableIntoProducer(rewriter.graph(), q, *p)) {
    v->setType(p->storage(), v->shape());
    v->setQuant(p->params);
    for (Node *user : uniqueUsers(v))
      rewriter.replaceNode(user, v);
    return true;
  }
  Value *out = q.output();
  // A quantize of a tensor that already has its dtype and parameters changes no code (two
  // wrapped layers back to back: the first one's output pair and the second one's input pair
  // agree): its users read the tensor itself, as the original's FoldQuantOps removes a
  // dequantize whose producer already has the quantize's parameters.
  if (v->isQuantized() && v->dtype() == p->storage() && *v->quant() == p->params && !out->isQuantized() &&
      !rewriter.graph().isGraphOutput(out)) {
    rewriter.replaceNode(&q, v);
    return true;
  }
  if (out->isQuantized()) {
    if (*out->quant() != p->params)
      throw nodeError(kPass, q, "its result '" + out->name() + "' already has other quantization parameters (" +
                                    describe(*out->quant(), out->dtype()) + ")");
    return false;
  }
  out->setType(p->storage(), out->shape());
  out->setQuant(p->params);
  rewriter.revisit(&q);
  return true;
}

bool foldDequantize(Node &d, rewrite::Rewriter &rewriter) {
  Value *a = d.input(0);
  if (a->isConstant())
    return false; // a quantized weight: remove-weight-dequant
  auto p = knownQNodeParams(d, kPass);
  if (!p)
    return false;
  bool changed = false;
  const Node *producer = a->producer();
  if (producer != nullptr && isQuantizeNode(*producer)) {
    if (auto pq = knownQNodeParams(*producer, kPass); pq && !sameQuantization(*pq, *p))
      throw nodeError(kPass, d,
                      "dequantizes tensor '" + a->name() + "' as " + describe(p->params, p->dtype) + " [" +
                          std::to_string(p->quant_min) + ", " + std::to_string(p->quant_max) + "], but quantize '" +
                          producer->name() + "' stored it as " + describe(pq->params, pq->dtype) + " [" +
                          std::to_string(pq->quant_min) + ", " + std::to_string(pq->quant_max) + "]");
  }
  if (a->isQuantized()) {
    if (*a->quant() != p->params || a->dtype() != p->storage())
      throw nodeError(kPass, d,
                      "dequantizes tensor '" + a->name() + "' as " + describe(p->params, p->storage()) +
                          ", but the tensor is quantized as " + describe(*a->quant(), a->dtype()));
  } else {
    if (a->dtype() != p->dtype && a->dtype() != p->storage())
      throw nodeError(kPass, d,
                      "dequantizes tensor '" + a->name() + "' of dtype " + std::string(dtypeName(a->dtype())) +
                          " as " + std::string(dtypeName(p->dtype)));
    if (producer != nullptr && isQuantizeNode(*producer))
      return false; // the quantize node is folded first (graph order); run-time qparams stay
    // An integer tensor the model receives quantized.
    a->setType(p->storage(), a->shape());
    a->setQuant(p->params);
    changed = true;
  }
  Value *out = d.output();
  for (Node *user : uniqueUsers(out))
    if ((isQuantizeNode(*user) && user->op().overload == "default") || quantizableNode(rewriter.graph(), *user))
      changed |= replaceUsesIn(rewriter, *user, out, a);
  if (!out->hasUsers() && !rewriter.graph().isGraphOutput(out)) {
    rewriter.eraseNode(&d);
    changed = true;
  }
  return changed;
}

} // namespace

void registerFoldQuantOps(Registrar &r) {
  namespace qd = tico::ops::quantized_decomposed;
  rewrite::DriverConfig config;
  config.traversal = rewrite::Traversal::Sweep; // graph order: a quantize before its dequantize
  r.addPass(rewrite::patternPassSpec(
      kPass,
      "Fold quantize/dequantize pairs on activations into quantization parameters of the tensors (FoldQuantOps)",
      {}, [](const Options &) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(rewrite::makePattern(
            {qd::quantize_per_tensor_default.key(), qd::quantize_per_channel_default.key()}, foldQuantize));
        patterns.push_back(rewrite::makePattern(
            {qd::dequantize_per_tensor_default.key(), qd::dequantize_per_channel_default.key()}, foldDequantize));
        return patterns;
      },
      config));
}

} // namespace tico::quant_passes
