// propagate-qparam-backward (the original's PropagateQParamBackward): when a data-movement op or
// a relu has a quantized result and a float input that only it reads, the op producing that
// input computes the quantized tensor instead (same dtype and parameters). This is how a
// convolution, whose quantize node sits after the permute back to channels-first (and a relu),
// gets its output parameters.
//
//   %c: f32 = circle::conv2d(...)                      %c: u8 {q: P} = circle::conv2d(...)
//   %p: u8 {q: P} = aten::permute.default(%c, ...)  -> %p: u8 {q: P} = aten::permute.default(%c, ...)
//
// Through relu only when the range starts at real 0 (zero point = the dtype's minimum): the
// producer's quantized result is then clamped at 0 already, so relu is the identity on it.
// The same pass turns a relu between quantized tensors into what Circle computes with
// quantized kernels: nothing, when both have the same parameters, or a requantize
// (quantize_per_tensor of the quantized input, QUANTIZE in Circle), whose clamp at the
// output's zero point is the relu.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ops/torch_ops.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/driver.h"

namespace tico::quant_passes {
namespace {

bool startsAtZero(const Value *v) {
  const QuantParams &q = *v->quant();
  return q.isPerTensor() && isQuantizedDType(v->dtype()) && q.zero_point[0] == qmin(v->dtype());
}

bool propagateBackward(Node &node, rewrite::Rewriter &rewriter) {
  if (node.numOutputs() != 1 || node.numArgs() == 0 || !node.arg(0).isValue())
    return false;
  Value *x = node.input(0);
  Value *y = node.output();
  if (!y->isQuantized() || x->isQuantized() || x->isConstant() || x->dtype() != DType::Float32 ||
      !y->quant()->isPerTensor())
    return false;
  Node *producer = x->producer();
  if (producer == nullptr || producer->numOutputs() != 1 || rewriter.graph().isGraphOutput(x))
    return false;
  for (const Node *user : x->users())
    if (user != &node)
      return false;
  const bool relu = node.opId() == ops::aten::relu_default;
  if (relu && !startsAtZero(y))
    return false;
  if (!quantizableInputs(*producer))
    return false;
  if (keepsInputParams(*producer))
    if (auto in = sourceParams(producer->input(0)); in && *in != *y->quant())
      return false;
  x->setType(y->dtype(), x->shape());
  x->setQuant(y->quantShared());
  rewriter.revisit(producer);
  rewriter.revisit(&node);
  return true;
}

bool foldQuantizedRelu(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  Value *y = node.output();
  if (!x->isQuantized() || !y->isQuantized() || !x->quant()->isPerTensor() || !startsAtZero(y))
    return false;
  if (*x->quant() == *y->quant() && x->dtype() == y->dtype()) {
    rewriter.replaceNode(&node, x);
    return true;
  }
  const DType t = y->dtype();
  rewrite::Builder b = rewriter.builderFor(node);
  Value *requantize = b.make("quantized_decomposed::quantize_per_tensor.default",
                             std::vector<Argument>{Argument::value(x), Argument::real(y->quant()->scale[0]),
                                                   Argument::integer(y->quant()->zero_point[0]),
                                                   Argument::integer(qmin(t)), Argument::integer(qmax(t)),
                                                   Argument::scalarType(t)});
  requantize->setType(t, y->shape());
  requantize->setQuant(y->quantShared());
  rewriter.replaceNode(&node, requantize);
  return true;
}

} // namespace

void registerPropagateQParamBackward(Registrar &r) {
  namespace aten = tico::ops::aten;
  rewrite::DriverConfig config;
  config.erase_dead = true;
  r.addPass(rewrite::patternPassSpec(
      "propagate-qparam-backward",
      "Give the producer of a data-movement op's or relu's float input the quantization of its quantized result "
      "(PropagateQParamBackward); relu between quantized tensors becomes nothing or a requantize",
      {}, [](const Options &) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(rewrite::makePattern({aten::relu_default.key()}, foldQuantizedRelu));
        std::vector<OpKey> roots = dataMovementRoots();
        roots.push_back(aten::relu_default.key());
        patterns.push_back(rewrite::makePattern(roots, propagateBackward));
        return patterns;
      },
      config));
}

} // namespace tico::quant_passes
