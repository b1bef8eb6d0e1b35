// MX (microscaling) quantization: the original converter's circle_custom MX ops.
//
// The original's Python package registers three ops (a program exported with it imported can
// hold them): mx_fake_quantize (eager MX fake quantization: every 32 consecutive elements
// along `axis` share one power-of-two exponent, each element is rounded to `elem_format`),
// and the logical pair quantize_mx / dequantize_mx it is decomposed into before folding. All
// three take (input_, elem_format, axis, shared_exp_method="max", round="nearest").
//
// * decompose-fake-quantize (pattern added by makeDecomposeMxPattern):
//     mx_fake_quantize(x, f, a, m, r) -> dequantize_mx(quantize_mx(x, f, a, m, r), f, a, m, r)
// * fold-mx-quant-ops (stage `quantize`): a quantize_mx / dequantize_mx pair becomes MX
//   parameters of a tensor (QuantParams::mx = the format, axis = the dimension of the shared
//   exponents; the value stays f32 in the IR, the serializer writes MXINT8 / MXFP4):
//     - the pair's input itself when nothing else reads it (its producer's result, or a model
//       input): the readers of the dequantize read it (the original's FoldQuantOps);
//     - the quantize's result otherwise (a value also read unquantized, a graph output, a
//       constant, a value already MX-quantized another way): the quantize stays and becomes a
//       Circle QUANTIZE (float -> MX, or MX -> MX).
//
// Only what Circle can carry is accepted, each refusal an error naming the node: elem_format
// int8 (mxint8) and fp4 / fp4_e2m1 (mxfp4) — the original's other formats (fp6_e3m2,
// fp6_e2m3, fp8_e4m3, fp8_e5m2) have no Circle tensor type; shared_exp_method "max" and round
// "nearest" (Circle records neither, the original refuses the others too); an axis inside the
// rank (negative axes count from the end, as in eager); a float32 input.
#include "mx_quant.h"
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ir/graph.h"
#include "tico/ops/circle_ops.h"
#include "tico/rewrite/builder.h"
#include "tico/rewrite/driver.h"
#include "tico/rewrite/match.h"

#include <algorithm>

namespace tico::quant_passes {
namespace {

namespace cc = tico::ops::circle_custom;

const std::string kFoldPass = "fold-mx-quant-ops";

bool isMxOp(const Node &node, const OpRef &op) { return node.opId() == op; }

std::string stringArg(const Node &node, const std::string &pass, std::string_view name) {
  const Argument *a = node.findArg(name);
  if (a == nullptr || a->kind() != Argument::Kind::String)
    throw nodeError(pass, node, "'" + std::string(name) + "' must be a string known at conversion time");
  return a->asString();
}

} // namespace

MxNodeParams mxNodeParams(const Node &node, const std::string &pass) {
  MxNodeParams p;
  const std::string format = stringArg(node, pass, "elem_format");
  if (format == "int8")
    p.format = MxFormat::Int8;
  else if (format == "fp4" || format == "fp4_e2m1")
    p.format = MxFormat::Fp4;
  else if (format == "fp6_e3m2" || format == "fp6_e2m3" || format == "fp8_e4m3" || format == "fp8_e5m2")
    throw nodeError(pass, node,
                    "MX element format '" + format + "' (mx" + format +
                        ") has no Circle tensor type; Circle carries mxint8 (elem_format 'int8') and mxfp4 ('fp4')");
  else
    throw nodeError(pass, node,
                    "unknown MX element format '" + format + "' (the original accepts int8, fp4, fp4_e2m1, "
                    "fp6_e3m2, fp6_e2m3, fp8_e4m3, fp8_e5m2; Circle carries int8 and fp4)");
  const std::string method = stringArg(node, pass, "shared_exp_method");
  if (method != "max")
    throw nodeError(pass, node,
                    "shared_exp_method '" + method + "' cannot be exported: Circle MX tensors record no "
                    "shared-exponent method and mean 'max'");
  const std::string round = stringArg(node, pass, "round");
  if (round != "nearest")
    throw nodeError(pass, node,
                    "round '" + round + "' cannot be exported: Circle MX tensors record no rounding mode and mean "
                    "'nearest'");
  const Argument *axis = node.findArg("axis");
  if (axis == nullptr || !axis->isInt())
    throw nodeError(pass, node, "'axis' must be an integer known at conversion time");
  const Value *x = node.input(0);
  if (!x->isTensor() || x->dtype() != DType::Float32)
    throw nodeError(pass, node,
                    "MX quantization of '" + x->name() + "' (" + std::string(dtypeName(x->dtype())) +
                        ") is not supported: the input must be float32");
  const int64_t rank = x->rank();
  p.axis = axis->asInt() < 0 ? axis->asInt() + rank : axis->asInt();
  if (p.axis < 0 || p.axis >= rank)
    throw nodeError(pass, node,
                    "axis " + std::to_string(axis->asInt()) + " is outside the rank " + std::to_string(rank) + " of '" +
                        x->name() + "'");
  return p;
}

QuantParams mxQuantParams(const MxNodeParams &p) {
  QuantParams q;
  q.mx = p.format;
  q.axis = p.axis;
  return q;
}

namespace {

bool decomposeMxFakeQuantize(Node &node, rewrite::Rewriter &rewriter) {
  (void)mxNodeParams(node, "decompose-fake-quantize"); // refuses what Circle cannot carry
  const Value *x = node.input(0);
  std::vector<NamedArg> args = node.args();
  rewrite::Builder b = rewriter.builderFor(node);
  TensorTypeSpec type;
  type.dtype = x->dtype();
  type.shape = x->shape();
  Value *q = b.node(cc::quantize_mx_default.key(), args, {type}, "_quantize_mx")->output();
  args[0].value = Argument::value(q);
  Value *dq = b.node(cc::dequantize_mx_default.key(), args, {type}, "_dequantize_mx")
                  ->output();
  rewriter.replaceNode(&node, dq);
  return true;
}

// Whether the MX parameters `p` can go on `v` itself: v is computed (or a model input), f32,
// not quantized yet, not returned, and read only by quantize_mx nodes asking for `p`.
bool foldableInto(const Graph &graph, const Value *v, const MxNodeParams &p) {
  if (v->isConstant() || v->quant() != nullptr || v->dtype() != DType::Float32 || graph.isGraphOutput(v))
    return false;
  for (const Node *user : v->users()) {
    if (!isMxOp(*user, cc::quantize_mx_default))
      return false;
    const MxNodeParams other = mxNodeParams(*user, kFoldPass);
    if (other.format != p.format || other.axis != p.axis)
      return false;
  }
  return true;
}

bool foldQuantizeMx(Node &q, rewrite::Rewriter &rewriter) {
  const MxNodeParams p = mxNodeParams(q, kFoldPass);
  const QuantParams params = mxQuantParams(p);
  Value *qv = q.output();
  if (qv->isMxQuantized())
    return false; // a quantize kept by an earlier sweep (QUANTIZE in Circle)
  if (!rewrite::isUsed(rewriter.graph(), qv)) {
    rewriter.eraseNode(&q);
    return true;
  }
  if (rewriter.graph().isGraphOutput(qv))
    throw nodeError(kFoldPass, q, "its result is a graph output; quantize_mx is followed by dequantize_mx");
  std::vector<Node *> dequantizes;
  for (Node *user : qv->users()) {
    if (!isMxOp(*user, cc::dequantize_mx_default))
      throw nodeError(kFoldPass, q,
                      "its result is read by '" + user->name() + "' (" + user->op().str() +
                          "); only dequantize_mx may read a quantize_mx result");
    const MxNodeParams d = mxNodeParams(*user, kFoldPass);
    if (d.format != p.format || d.axis != p.axis)
      throw nodeError(kFoldPass, *user,
                      "dequantizes '" + qv->name() + "' as " + std::string(mxFormatName(d.format)) + " along axis " +
                          std::to_string(d.axis) + ", but '" + q.name() + "' quantized it as " +
                          std::string(mxFormatName(p.format)) + " along axis " + std::to_string(p.axis));
    if (std::find(dequantizes.begin(), dequantizes.end(), user) == dequantizes.end())
      dequantizes.push_back(user);
  }
  Value *v = q.input(0);
  if (v->isQuantized())
    throw nodeError(kFoldPass, q,
                    "reads '" + v->name() + "', which is quantized as " + describe(*v->quant(), v->dtype()) +
                        "; MX quantization of integer codes is not supported");
  Value *target = nullptr;
  if (v->quant() != nullptr && *v->quant() == params) {
    target = v; // an identical pair folded before
  } else if (foldableInto(rewriter.graph(), v, p)) {
    v->setQuant(params);
    target = v;
  } else {
    qv->setQuant(params); // the quantize stays: QUANTIZE in Circle
    target = qv;
  }
  for (Node *dq : dequantizes)
    rewriter.replaceNode(dq, target);
  if (target != qv)
    rewriter.eraseNode(&q);
  return true;
}

// A dequantize_mx whose input no quantize_mx produced cannot be folded: what it reads holds
// no MX values (the original leaves such a node, and its serializer fails later).
bool checkDequantizeMx(Node &dq, rewrite::Rewriter &) {
  const Node *producer = dq.input(0)->producer();
  if (producer == nullptr || !isMxOp(*producer, cc::quantize_mx_default))
    throw nodeError(kFoldPass, dq,
                    "reads '" + dq.input(0)->name() + "', which no quantize_mx produced; a dequantize_mx "
                    "must follow the quantize_mx of the same format and axis");
  return false;
}

} // namespace

std::unique_ptr<rewrite::Pattern> makeDecomposeMxPattern() {
  return rewrite::makePattern({cc::mx_fake_quantize_default.key()}, decomposeMxFakeQuantize);
}

void registerFoldMxQuantOps(Registrar &r) {
  rewrite::DriverConfig config;
  config.traversal = rewrite::Traversal::Sweep; // graph order: a quantize before its dequantize
  r.addPass(rewrite::patternPassSpec(
      kFoldPass,
      "Fold circle_custom quantize_mx/dequantize_mx pairs into MX quantization (mxint8, mxfp4) of the tensors "
      "(the MX part of FoldQuantOps)",
      {}, [](const Options &) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(rewrite::makePattern({cc::quantize_mx_default.key()}, foldQuantizeMx));
        patterns.push_back(rewrite::makePattern({cc::dequantize_mx_default.key()}, checkDequantizeMx));
        return patterns;
      },
      config));
}

} // namespace tico::quant_passes
