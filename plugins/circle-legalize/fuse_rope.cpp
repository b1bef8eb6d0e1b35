// fuse-rope: the rotary embedding of Llama-style models,
//
//   x * cos + rotate_half(x) * sin,   rotate_half(x) = cat(-x[..., D/2:], x[..., :D/2], -1)
//
// becomes circle::rope(x, sin, cos, 0) (ROPE, GPT-NeoX mode) — when the Circle kernels compute
// the same thing. They read one row of D sin/cos values and apply it to every position, so the
// fusion requires tables with a single row (every leading dim 1, static): the decode step of a
// model (one token) or position-independent tables. Prefill tables with one row per position
// stay as the elementwise ops. x must be a float32 rank-4 tensor with a static even last dim.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

struct Product {
  Value *lhs = nullptr, *rhs = nullptr;
};

std::optional<Product> product(const Value *v) {
  const Node *n = v->producer();
  if (!n || !isOp(*n, {"aten::mul.Tensor"}) || !n->arg(0).isValue() || !n->arg(1).isValue())
    return std::nullopt;
  return Product{n->input(0), n->input(1)};
}

// The x of slice(x, last, start, end) with the given bounds (end >= D means "to the end").
Value *sliceOfLastDim(const Value *v, int64_t start, int64_t end) {
  const Node *n = v->producer();
  if (!n || !isOp(*n, {"aten::slice.Tensor"}))
    return nullptr;
  Value *x = n->input(0);
  int64_t d = x->shape().back().value();
  if (tryNormalizeDim(n->arg("dim").asInt(), x->rank()) != x->rank() - 1 || n->arg("step").asInt() != 1)
    return nullptr;
  const Argument &s = n->arg("start");
  const Argument &e = n->arg("end");
  int64_t s_v = s.isNone() ? 0 : (s.isInt() ? s.asInt() : -1);
  int64_t e_v = e.isNone() ? d : (e.isInt() ? std::min(e.asInt(), d) : -1);
  return s_v == start && e_v == end ? x : nullptr;
}

// The x of rotate_half(x) = cat([-x2, x1], -1).
Value *rotateHalfOf(const Value *v) {
  const Node *cat = v->producer();
  if (!cat || !isOp(*cat, {"aten::cat.default"}))
    return nullptr;
  const auto &parts = cat->arg(0).asValues();
  if (parts.size() != 2 || tryNormalizeDim(cat->arg(1).asInt(), v->rank()) != v->rank() - 1)
    return nullptr;
  const Node *neg = parts[0]->producer();
  if (!neg || !isOp(*neg, {"aten::neg.default"}))
    return nullptr;
  const Value *any = parts[1];
  if (any->rank() < 1 || v->shape().back().isSymbolic())
    return nullptr;
  int64_t d = v->shape().back().value();
  if (d % 2 != 0)
    return nullptr;
  Value *x2 = sliceOfLastDim(neg->input(0), d / 2, d);
  Value *x1 = sliceOfLastDim(parts[1], 0, d / 2);
  return x1 && x1 == x2 ? x1 : nullptr;
}

// A sin/cos table the ROPE kernels read correctly: one static row of `d` float32 values.
bool singleRow(const Value *t, int64_t d) {
  return t->dtype() == DType::Float32 && isStatic(t->shape()) && t->rank() >= 1 && t->rank() <= 4 &&
         t->shape().back().value() == d && numElementsHint(t->shape()) == d;
}

class FuseRope final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override { return rewrite::opKeys({"aten::add.Tensor"}); }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    return isUsed(rewriter.graph(), node.output()) && fuse(rewriter, node);
  }

private:
  static bool fuse(rewrite::Rewriter &rewriter, Node &node) {
    if (!node.arg(0).isValue() || !node.arg(1).isValue() || node.arg("alpha").asDouble() != 1.0)
      return false;
    for (std::size_t side = 0; side < 2; ++side) {
      auto direct = product(node.input(side));
      auto rotated = product(node.input(1 - side));
      if (!direct || !rotated)
        continue;
      // rotated = rotate_half(x) * sin (either order), direct = x * cos (either order).
      for (auto [r, sin] : {std::pair{rotated->lhs, rotated->rhs}, std::pair{rotated->rhs, rotated->lhs}}) {
        Value *x = rotateHalfOf(r);
        if (!x || x->rank() != 4 || x->dtype() != DType::Float32)
          continue;
        Value *cos = direct->lhs == x ? direct->rhs : direct->rhs == x ? direct->lhs : nullptr;
        int64_t d = x->shape().back().value();
        if (!cos || !singleRow(cos, d) || !singleRow(sin, d) || node.output()->shape() != x->shape())
          continue;
        Builder b = rewriter.builderFor(node);
        Value *fused = b.value(OpKey("circle", "rope"),
                               {Argument::value(x), Argument::value(sin), Argument::value(cos), Argument::integer(0)},
                               DType::Float32, x->shape(), "_rope");
        rewriter.replaceAllUsesWith(node.output(), fused);
        return true;
      }
    }
    return false;
  }
};

} // namespace

void registerFuseRope(Registrar &r) {
  addFusionPass<FuseRope>(r, "fuse-rope",
                          "x * cos + rotate_half(x) * sin with one-row tables -> circle::rope (ROPE)");
}

} // namespace tico::legalize
