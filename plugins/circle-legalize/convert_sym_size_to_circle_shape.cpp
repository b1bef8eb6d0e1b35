// convert-sym-size-to-circle-shape: aten::sym_size.int(x, d) — a dim read at runtime — is
// spelled out with Circle's SHAPE:
//
//   %x_shape: i32[rank(x)] = circle::shape(%x)           (one per tensor)
//   %d:       i32[1]       = aten::slice.Tensor(%x_shape, 0, d, d + 1)
//   %s:       SymInt       = aten::_local_scalar_dense(%d)   (same expression and hint)
//
// The SymInt keeps feeding view/expand/full/arange sizes and the symbolic integer arithmetic;
// the serializer lowers this chain only when a lowering needs the SymInt at runtime (a shape
// with several symbolic dims), so SHAPE appears in the model exactly where it is used.
#include "legalize_support.h"
#include "passes.h"

#include <map>

namespace tico::legalize {
namespace {

// One run of the pass: the circle::shape of a tensor is shared by its sym_size nodes, so the
// pattern remembers the ones it created (a fresh pattern for every run: no stale pointers).
class ConvertSymSizeToCircleShape final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override { return {OpKey("aten", "sym_size", "int")}; }

  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    Value *x = node.input(0);
    auto dim = tryNormalizeDim(node.arg(1).asInt(), x->rank());
    if (!dim || x->rank() == 0)
      return false;
    Builder b = rewriter.builderFor(node); // every node here is explicitly typed
    Value *&shape = shapes_[x];
    if (!shape)
      shape = b.value(OpKey("circle", "shape"), {Argument::value(x)}, DType::Int32, Shape{x->rank()}, "_shape");
    Value *element = b.sliceOrView(shape, 0, *dim, *dim + 1, 1, "_dim");
    TensorTypeSpec symint;
    symint.kind = ValueKind::SymInt;
    Node *scalar =
        b.node(OpKey("aten", "_local_scalar_dense"), {NamedArg{"self", Argument::value(element)}}, {symint}, "_int");
    Value *old = node.output();
    scalar->output()->setSym(old->symExpr(), old->symHint());
    replaceAndErase(rewriter, &node, old, scalar->output());
    return true;
  }

private:
  std::map<Value *, Value *> shapes_; // tensor -> its circle::shape, created at its first use
};

} // namespace

void registerConvertSymSizeToCircleShape(Registrar &r) {
  r.addPass(rewrite::patternPassSpec(
      "convert-sym-size-to-circle-shape", "aten::sym_size.int -> circle::shape + slice + _local_scalar_dense", {},
      [](const Options &) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(std::make_unique<ConvertSymSizeToCircleShape>());
        return patterns;
      },
      {rewrite::Traversal::Sweep}));
}

} // namespace tico::legalize
