// convert-to-relu6 (ConvertToReLU6): clamping to [0, 6] is ReLU6, one Circle operator:
//   hardtanh(x, 0, 6)                                   -> relu6(x)
//   clamp(x, 0, 6)                                      -> relu6(x)
//   clamp(clamp(x, a, b), c, d), max(a,c)=0, min(b,d)=6 -> relu6(x)
// (an absent bound is -inf / +inf; two clamps whose ranges meet compose to the intersection).
// Only float tensors whose dtype the clamp keeps are rewritten: relu6 does not promote.
#include "pass_support.h"
#include "passes.h"

#include <algorithm>
#include <limits>

namespace tico::passes {
namespace {

struct Bounds {
  double lo, hi;
};

// The bounds of a clamp/hardtanh with number bounds, or nullopt.
std::optional<Bounds> boundsOf(const Node &node) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (isOp(node, {"aten::hardtanh.default"})) {
    auto lo = numberOf(node.arg("min_val")), hi = numberOf(node.arg("max_val"));
    if (!lo || !hi)
      return std::nullopt;
    return Bounds{*lo, *hi};
  }
  if (isOp(node, {"aten::clamp.default"})) {
    const Argument &lo = node.arg("min"), &hi = node.arg("max");
    if ((!lo.isNone() && !lo.isNumber()) || (!hi.isNone() && !hi.isNumber()))
      return std::nullopt;
    return Bounds{lo.isNone() ? -inf : lo.asDouble(), hi.isNone() ? inf : hi.asDouble()};
  }
  return std::nullopt;
}

// Every node: boundsOf recognises the clamp-like ops.
bool toRelu6(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  auto bounds = boundsOf(*node);
  if (!bounds || !isTensorValue(node->arg(0)))
    return false;
  Value *x = node->input(0);
  const Value *out = node->output();
  if (!isFloating(x->dtype()) || out->dtype() != x->dtype())
    return false;
  Value *source = nullptr;
  if (bounds->lo == 0.0 && bounds->hi == 6.0) {
    source = x;
  } else if (Node *inner = producerIf(x, {"aten::clamp.default"})) {
    auto inner_bounds = boundsOf(*inner);
    if (inner_bounds && isTensorValue(inner->arg(0)) && inner->input(0)->dtype() == x->dtype() &&
        std::max(bounds->lo, inner_bounds->lo) == 0.0 && std::min(bounds->hi, inner_bounds->hi) == 6.0)
      source = inner->input(0);
  }
  if (!source)
    return false;
  Builder b = rewriter.builderFor(*node);
  Value *relu6 = b.make("aten::relu6.default", {A(source)});
  rewriter.replaceNode(node, relu6);
  rewriter.eraseDeadChain(x);
  return true;
}

} // namespace

void registerConvertToRelu6(Registrar &r) {
  r.addPass(sweepPass("convert-to-relu6", "Rewrite hardtanh/clamp (and two clamps) bounded to [0, 6] as relu6", {},
                      toRelu6));
}

} // namespace tico::passes
