// fuse-rms-norm: the RMSNorm of Llama-style models,
//
//   y = w * (x * rsqrt(mean(x^2, -1, keepdim=True) + eps))
//
// becomes circle::rms_norm(x, w, eps) (RMS_NORM). x^2 may be pow(x, 2), x * x or square(x);
// rsqrt(v) may be 1 / sqrt(v) (a reciprocal or a division); the products may come in either
// order; without the final scaling the weight is absent. x must be float32 and w (when
// present) a vector over the last dim. aten::rms_norm itself lowers to RMS_NORM directly.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

// The other operand of binary `node` when one of its two operands is `v`.
Value *otherOperand(const Node &node, const Value *v) {
  if (!node.arg(0).isValue() || !node.arg(1).isValue())
    return nullptr;
  if (node.input(0) == v)
    return node.input(1);
  if (node.input(1) == v)
    return node.input(0);
  return nullptr;
}

// Whether `v` is x^2.
bool isSquareOf(const Value *v, const Value *x) {
  const Node *n = v->producer();
  if (!n)
    return false;
  if (isOp(*n, {"aten::pow.Tensor_Scalar"}))
    return n->input(0) == x && n->arg(1).isNumber() && n->arg(1).asDouble() == 2.0;
  if (isOp(*n, {"aten::square.default"}))
    return n->input(0) == x;
  if (isOp(*n, {"aten::mul.Tensor"}))
    return n->arg(0).isValue() && n->arg(1).isValue() && n->input(0) == x && n->input(1) == x;
  return false;
}

// eps when `v` = mean(x^2, [-1], keepdim=True) + eps.
std::optional<double> varianceEps(const Value *v, const Value *x) {
  const Node *add = v->producer();
  if (!add || !isOp(*add, {"aten::add.Tensor", "aten::add.Scalar"}) || !add->arg(0).isValue())
    return std::nullopt;
  if (const Argument *alpha = add->findArg("alpha"); alpha && alpha->asDouble() != 1.0)
    return std::nullopt;
  if (!add->arg(1).isNumber())
    return std::nullopt;
  const Node *mean = add->input(0)->producer();
  if (!mean || !isOp(*mean, {"aten::mean.dim"}) || !mean->arg("keepdim").asBool() ||
      !mean->arg("dtype").isNone())
    return std::nullopt;
  const Argument &dims = mean->arg("dim");
  if (dims.isNone() || dims.asInts().size() != 1 || tryNormalizeDim(dims.asInts()[0], x->rank()) != x->rank() - 1)
    return std::nullopt;
  if (!isSquareOf(mean->input(0), x))
    return std::nullopt;
  return add->arg(1).asDouble();
}

// eps when `r` = rsqrt(mean(x^2) + eps) or 1 / sqrt(...).
std::optional<double> inverseRmsEps(const Value *r, const Value *x) {
  const Node *n = r->producer();
  if (!n)
    return std::nullopt;
  if (isOp(*n, {"aten::rsqrt.default"}))
    return varianceEps(n->input(0), x);
  const Value *sqrt_value = nullptr;
  if (isOp(*n, {"aten::reciprocal.default"}))
    sqrt_value = n->input(0);
  else if (isOp(*n, {"aten::div.Tensor", "aten::div.Scalar"}) && n->arg(0).isNumber() && n->arg(0).asDouble() == 1.0 &&
           n->arg(1).isValue())
    sqrt_value = n->input(1);
  if (!sqrt_value || !isOp(sqrt_value, {"aten::sqrt.default"}))
    return std::nullopt;
  return varianceEps(sqrt_value->producer()->input(0), x);
}

class FuseRmsNorm final : public rewrite::Pattern {
public:
    // Replaced nodes stay (dead) until the end, so the snapshot stays valid; dead ones are skipped.
  std::vector<OpKey> roots() const override { return rewrite::opKeys({"aten::mul.Tensor"}); }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    return isUsed(rewriter.graph(), node.output()) && fuse(rewriter, node);
  }

private:
  // `node` = x * r with r the inverse RMS of x.
  static bool fuse(rewrite::Rewriter &rewriter, Node &node) {
    if (!node.arg(0).isValue() || !node.arg(1).isValue())
      return false;
    for (std::size_t side = 0; side < 2; ++side) {
      Value *x = node.input(side);
      Value *r = node.input(1 - side);
      if (x->dtype() != DType::Float32 || x->rank() < 1 || x->shape().back().isSymbolic() ||
          node.output()->shape() != x->shape())
        continue;
      auto eps = inverseRmsEps(r, x);
      if (!eps)
        continue;
      // An elementwise weight over the last dim, when the normalised value's only user is it.
      Value *normalised = node.output();
      Node *scale = nullptr;
      Value *weight = nullptr;
      if (normalised->users().size() == 1 && !rewriter.graph().isGraphOutput(normalised)) {
        Node *user = normalised->users().front();
        if (isOp(*user, {"aten::mul.Tensor"}))
          if (Value *w = otherOperand(*user, normalised);
              w && w != normalised && w->rank() == 1 && w->dtype() == DType::Float32 && w->shape()[0] == x->shape().back() &&
              user->output()->shape() == x->shape()) {
            scale = user;
            weight = w;
          }
      }
      Node *anchor = scale ? scale : &node;
      Builder b = rewriter.builder(anchor, anchor->name());
      Value *fused = b.value(OpKey("circle", "rms_norm"),
                             {Argument::value(x), weight ? Argument::value(weight) : Argument::none(), Argument::real(*eps)},
                             DType::Float32, x->shape(), "_rms_norm");
      rewriter.replaceAllUsesWith(anchor->output(), fused);
      return true;
    }
    return false;
  }
};

} // namespace

void registerFuseRmsNorm(Registrar &r) {
  addFusionPass<FuseRmsNorm>(r, "fuse-rms-norm",
                             "w * (x * rsqrt(mean(x^2, -1, keepdim) + eps)) -> circle::rms_norm (RMS_NORM)");
}

} // namespace tico::legalize
