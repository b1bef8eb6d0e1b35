// fuse-instance-norm: run_decompositions() writes instance_norm as a batch norm over a
// [1, N*C, H, W] view with the affine parameters repeated N times:
//
//   view(_native_batch_norm_legit.no_stats(view(x, [1, N*C, H, W]), repeat(w, [N]),
//        repeat(b, [N]), training=True, momentum, eps)[0], [N, C, H, W])
//
// The pass restores aten::instance_norm(x, w, b, None, None, True, momentum, eps), which
// legalize-pre-defined-layout-operators (or the ATen lowering) turns into INSTANCE_NORM.
// Without affine parameters w and b are None.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

bool isView(const Node *n) {
  return n && isOp(*n, {"aten::view.default", "aten::reshape.default", "aten::_unsafe_view.default"});
}

// The per-channel parameter behind repeat(p, [N]) (or None).
std::optional<Argument> perChannel(const Argument &arg, int64_t channels, int64_t batch) {
  if (arg.isNone())
    return arg;
  const Node *repeat = arg.asValue()->producer();
  if (!repeat || !isOp(*repeat, {"aten::repeat.default"}) || !repeat->arg(1).isIntList() ||
      repeat->arg(1).asInts() != std::vector<int64_t>{batch})
    return std::nullopt;
  Value *p = repeat->input(0);
  if (p->rank() != 1 || p->shape()[0] != Dim(channels))
    return std::nullopt;
  return Argument::value(p);
}

class FuseInstanceNorm final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override {
    return rewrite::opKeys({"aten::view.default", "aten::reshape.default", "aten::_unsafe_view.default"});
  }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    return isUsed(rewriter.graph(), node.output()) && fuse(rewriter, node);
  }

private:
  // `node` = the view back to [N, C, H, W].
  static bool fuse(rewrite::Rewriter &rewriter, Node &node) {
    const Value *normalised = node.input(0);
    const Node *bn = normalised->producer();
    if (!bn || !isOp(*bn, {"aten::_native_batch_norm_legit.no_stats"}) || normalised->producerOutput() != 0 ||
        !bn->arg("training").asBool())
      return false;
    const Node *flatten = bn->input(0)->producer();
    if (!isView(flatten))
      return false;
    Value *x = flatten->input(0);
    const Shape &xs = x->shape();
    const Shape &vs = bn->input(0)->shape();
    if (x->rank() != 4 || node.output()->shape() != xs || vs.size() != 4 || vs[0] != Dim(1) || vs[2] != xs[2] ||
        vs[3] != xs[3] || xs[0].isSymbolic() || xs[1].isSymbolic() || vs[1] != Dim(xs[0].value() * xs[1].value()))
      return false;
    int64_t batch = xs[0].value(), channels = xs[1].value();
    auto weight = perChannel(bn->arg("weight"), channels, batch);
    auto bias = perChannel(bn->arg("bias"), channels, batch);
    if (!weight || !bias)
      return false;
    Builder b = rewriter.builderFor(node);
    Value *fused = b.value(OpKey("aten", "instance_norm"),
                           {Argument::value(x), *weight, *bias, Argument::none(), Argument::none(),
                            Argument::boolean(true), bn->arg("momentum"), bn->arg("eps"), Argument::boolean(false)},
                           x->dtype(), xs, "_instance_norm");
    rewriter.replaceAllUsesWith(node.output(), fused);
    return true;
  }
};

} // namespace

void registerFuseInstanceNorm(Registrar &r) {
  addFusionPass<FuseInstanceNorm>(
      r, "fuse-instance-norm",
      "decomposed instance_norm (batch norm over a [1, N*C, H, W] view) -> aten::instance_norm");
}

} // namespace tico::legalize
