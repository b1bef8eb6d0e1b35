// remove-weight-dequant (the original's RemoveWeightDequantOp): an integer constant behind a
// dequantize node becomes a quantized constant, read directly by the ops that take quantized
// operands (linear, the circle convolutions, data movement such as the permute of a conv
// weight); the per-channel axis becomes the tensor's quantized dimension.
//
//   constant %w: i8[8, 16]                       constant %w: i8[8, 16] {q: scale=[...], zp=[...], axis=0}
//   %d = dequantize_per_channel(%w, %s, %z, 0, -127, 127, dtype(i8))
//   %y = aten::linear(%x, %d, %b)           ->   %y = aten::linear(%x, %w, %b)
//
// The 4-bit ranges (0, 15) and (-8, 7), held in an 8-bit constant, make the constant u4 / i4
// (every value is checked to lie in the range). Users that take no quantized operand (a float
// op: weight-only quantization) keep the dequantize node, which becomes DEQUANTIZE of the
// quantized constant. Errors name the node and the tensor: a constant of another dtype than the
// dequantize names, two dequantize nodes giving one constant different parameters, a constant
// also read as plain integers by other ops, bad parameters (knownQNodeParams).
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ops/torch_ops.h"
#include "tico/rewrite/driver.h"

#include <algorithm>

namespace tico::quant_passes {
namespace {

const std::string kPass = "remove-weight-dequant";

bool removeWeightDequant(Node &d, rewrite::Rewriter &rewriter) {
  Value *w = d.input(0);
  if (!w->isConstant())
    return false;
  auto p = knownQNodeParams(d, kPass);
  if (!p)
    return false;
  const DType storage = p->storage();
  bool changed = false;
  if (w->isQuantized()) {
    if (*w->quant() != p->params || w->dtype() != storage)
      throw nodeError(kPass, d,
                      "dequantizes weight '" + w->name() + "' as " + describe(p->params, storage) +
                          ", but another dequantize of it gave it " + describe(*w->quant(), w->dtype()) +
                          "; one constant can carry only one set of quantization parameters");
  } else {
    if (w->dtype() != p->dtype)
      throw nodeError(kPass, d,
                      "dequantizes weight '" + w->name() + "' of dtype " + std::string(dtypeName(w->dtype())) +
                          " as " + std::string(dtypeName(p->dtype)));
    for (const Node *user : w->users())
      if (!isDequantizeNode(*user))
        throw nodeError(kPass, d,
                        "weight '" + w->name() + "' is dequantized here but also read as plain integers by '" +
                            user->name() + "' (" + user->op().str() + ")");
    // Every other dequantize of the constant must agree (checked here, before any changes).
    for (const Node *user : w->users()) {
      auto other = knownQNodeParams(*user, kPass);
      if (!other || other->params != p->params || other->storage() != storage)
        throw nodeError(kPass, d,
                        "weight '" + w->name() + "' is dequantized as " + describe(p->params, storage) + " here and " +
                            (other ? "as " + describe(other->params, other->storage()) : std::string("with run-time parameters")) +
                            " by '" + user->name() + "'; one constant can carry only one set of quantization parameters");
    }
    if (storage != w->dtype()) {
      auto values = constantElements(*w->constant());
      for (double v : values.value_or(std::vector<double>{}))
        if (v < static_cast<double>(p->quant_min) || v > static_cast<double>(p->quant_max))
          throw nodeError(kPass, d,
                          "weight '" + w->name() + "' holds " + number(v) + ", outside the 4-bit range [" +
                              std::to_string(p->quant_min) + ", " + std::to_string(p->quant_max) + "]");
      auto data = std::make_shared<TensorData>(*w->constant());
      data->dtype = storage; // one byte per element in IR memory, as the 8-bit type
      w->setConstant(std::move(data));
    }
    w->setType(storage, w->shape());
    w->setQuant(p->params);
    changed = true;
  }
  Value *out = d.output();
  std::vector<Node *> users;
  for (Node *u : out->users())
    if (std::find(users.begin(), users.end(), u) == users.end())
      users.push_back(u);
  for (Node *user : users)
    if (!isQuantizeNode(*user) && quantizableNode(rewriter.graph(), *user))
      changed |= replaceUsesIn(rewriter, *user, out, w);
  if (!out->hasUsers() && !rewriter.graph().isGraphOutput(out)) {
    rewriter.eraseNode(&d);
    changed = true;
  }
  return changed;
}

} // namespace

void registerRemoveWeightDequant(Registrar &r) {
  namespace qd = tico::ops::quantized_decomposed;
  rewrite::DriverConfig config;
  config.traversal = rewrite::Traversal::Sweep;
  r.addPass(rewrite::patternPassSpec(
      kPass, "Integer constant + dequantize -> quantized constant (RemoveWeightDequantOp)",
      {qd::dequantize_per_tensor_default.key(), qd::dequantize_per_channel_default.key()}, removeWeightDequant,
      config));
}

} // namespace tico::quant_passes
