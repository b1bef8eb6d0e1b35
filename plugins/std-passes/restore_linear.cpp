// restore-linear: undoes the decomposition of linear, which torch.export's
// run_decompositions() turns into
//     addmm(bias, x, permute(W, [1, 0]))   or   mm(x, permute(W, [1, 0]))
// (also with t(W) / transpose(W, 0, 1)), back into linear(x, W, bias), so it lowers to one
// FULLY_CONNECTED that reads W as stored. W must be a constant: FULLY_CONNECTED with
// computed weights is not reliably supported by Circle runtimes. A quantized weight (the
// dequantize of an integer constant, or of the quantize of a float constant, as fake-quantized
// and PT2E programs hold them) counts as a constant, as in the original, which restores any
// transposed weight: the quantization bundle then makes it the quantized FULLY_CONNECTED weight. addmm qualifies only with
// beta = alpha = 1 and a 1-D bias.
#include "linear_builder.h"
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

// Whether `w` is a quantized weight: the dequantize (.default, per tensor or per channel) of a
// constant, or of the quantize of a constant that constant folding turns into integers.
bool isDequantizedConstant(const Value *w) {
  const Node *d = w->producer();
  if (!d || !isOp(*d, {"quantized_decomposed::dequantize_per_tensor.default",
                       "quantized_decomposed::dequantize_per_channel.default"}) ||
      d->numArgs() == 0 || !d->arg(0).isValue())
    return false;
  const Value *q = d->input(0);
  if (q->isConstant())
    return true;
  const Node *qn = q->producer();
  return qn && isOp(*qn, {"quantized_decomposed::quantize_per_tensor.default",
                          "quantized_decomposed::quantize_per_channel.default"}) &&
         qn->numArgs() > 0 && qn->arg(0).isValue() && qn->input(0)->isConstant();
}

// W when `value` is a 2-D transpose of a constant W (or of a quantized weight W), else null.
Value *transposedWeight(const Value *value) {
  const Node *t = value->producer();
  if (!t || t->numArgs() == 0 || !t->arg(0).isValue())
    return nullptr;
  Value *w = t->input(0);
  if (w->rank() != 2 || !(w->isConstant() || isDequantizedConstant(w)))
    return nullptr;
  if (isOp(*t, {"aten::t.default"}))
    return w;
  if (isOp(*t, {"aten::permute.default"})) {
    const auto &dims = t->arg(1).asInts();
    bool swap = dims.size() == 2 && (dims[0] == 1 || dims[0] == -1) && (dims[1] == 0 || dims[1] == -2);
    return swap ? w : nullptr;
  }
  if (isOp(*t, {"aten::transpose.int"})) {
    int64_t a = t->arg(1).asInt(), b = t->arg(2).asInt();
    a = a < 0 ? a + 2 : a;
    b = b < 0 ? b + 2 : b;
    return a != b ? w : nullptr;
  }
  return nullptr;
}

bool isOne(const Argument &arg) { return arg.isNumber() && arg.asDouble() == 1.0; }

bool restoreLinear(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  const bool addmm = isOp(*node, {"aten::addmm.default"});
  Value *x = node->input(addmm ? 1 : 0);
  Value *rhs = node->input(addmm ? 2 : 1);
  Value *w = transposedWeight(rhs);
  if (!w || x->rank() != 2 || x->dtype() != DType::Float32 || w->dtype() != DType::Float32)
    return false;
  Value *bias = nullptr;
  if (addmm) {
    bias = node->input(0);
    if (!isOne(node->arg("beta")) || !isOne(node->arg("alpha")) || bias->rank() != 1 ||
        bias->shape()[0] != w->shape()[0] || bias->dtype() != DType::Float32)
      return false;
  }
  Node *transpose = rhs->producer();
  Value *linear = insertLinear(rewriter, node, x, w, bias, node->output()->shape(), node->output()->dtype());
  rewriter.replaceNode(node, linear);
  rewriter.eraseIfDead(transpose);
  return true;
}

} // namespace

void registerRestoreLinear(Registrar &r) {
  r.addPass(sweepPass("restore-linear", "Rewrite addmm/mm with a transposed constant weight back into linear",
                      {"aten::addmm.default", "aten::mm.default"}, restoreLinear));
}

} // namespace tico::passes
