// slice.Tensor -> STRIDED_SLICE with int32 begin / end / strides.
//
// Only the sliced dim has real bounds; every other dim is taken whole through begin_mask and
// end_mask. On a static dim the bounds are normalised and clamped exactly as PyTorch does; on
// a symbolic dim negative bounds are left to STRIDED_SLICE (which also counts them from the
// end and clamps), and an end at or past INT32_MAX (PyTorch writes INT64_MAX for "to the end")
// becomes an end_mask bit. Symbolic bounds are read from their SymInt tensors.
#include "lowerings.h"
#include "support.h"

#include <limits>

namespace tico::lowering {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

class Slice final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "slice of a 0-D tensor";
    normalizeDim(node.arg("dim").asInt(), in->rank());
    const Argument &step = node.arg("step");
    if (!step.isInt())
      return "slice with a symbolic step is not supported";
    if (step.asInt() <= 0)
      return "slice step must be positive";
    for (const char *name : {"start", "end"}) {
      const Argument &bound = node.arg(name);
      if (!bound.isNone() && !bound.isInt() && !(bound.isValue() && bound.asValue()->kind() == ValueKind::SymInt))
        return std::string("slice ") + name + " must be an int or a SymInt";
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    int64_t rank = in->rank();
    int64_t dim = normalizeDim(node.arg("dim").asInt(), rank);
    const Dim &size = in->shape()[static_cast<std::size_t>(dim)];
    const Argument &start = node.arg("start");
    const Argument &end = node.arg("end");

    std::vector<VectorPiece> begin(static_cast<std::size_t>(rank)), finish(static_cast<std::size_t>(rank));
    std::vector<int64_t> strides(static_cast<std::size_t>(rank), 1);
    strides[static_cast<std::size_t>(dim)] = node.arg("step").asInt();
    int32_t begin_mask = 0, end_mask = 0;
    for (int64_t i = 0; i < rank; ++i)
      if (i != dim) {
        begin_mask |= 1 << i;
        end_mask |= 1 << i;
      }

    VectorPiece &b = begin[static_cast<std::size_t>(dim)];
    VectorPiece &e = finish[static_cast<std::size_t>(dim)];
    if (start.isValue()) {
      b.kind = VectorPiece::Kind::Symbol;
      b.symbol = start.asValue();
    } else {
      b.value = start.isNone() ? 0 : start.asInt();
    }
    if (end.isValue()) {
      e.kind = VectorPiece::Kind::Symbol;
      e.symbol = end.asValue();
    } else if (end.isNone() || end.asInt() >= kInt32Max) {
      end_mask |= 1 << dim;
    } else {
      e.value = end.asInt();
    }

    if (size.isStatic()) {
      int64_t n = size.value();
      auto clamp = [n](int64_t v) {
        if (v < 0)
          v += n;
        return std::clamp<int64_t>(v, 0, n);
      };
      if (b.kind == VectorPiece::Kind::Constant)
        b.value = clamp(b.value);
      if (e.kind == VectorPiece::Kind::Constant && !(end_mask & (1 << dim)))
        e.value = std::max(clamp(e.value), b.kind == VectorPiece::Kind::Constant ? b.value : 0);
    } else {
      // STRIDED_SLICE clamps out-of-range bounds itself; only keep them inside int32.
      for (VectorPiece *p : {&b, &e})
        if (p->kind == VectorPiece::Kind::Constant)
          p->value = std::clamp<int64_t>(p->value, std::numeric_limits<int32_t>::min(), kInt32Max);
    }

    circle::StridedSliceOptionsT slice;
    slice.begin_mask = begin_mask;
    slice.end_mask = end_mask;
    int32_t begin_t = emitIntVector(emit, begin, base + "_begin");
    int32_t end_t = emitIntVector(emit, finish, base + "_end");
    int32_t strides_t = emit.constInt32(toInt32(strides, "step"), base + "_strides");
    emitOp(emit, circle::BuiltinOperator::STRIDED_SLICE, {emit.tensor(in), begin_t, end_t, strides_t}, node.output(),
           options(std::move(slice)));
  }
};

} // namespace

void registerSlice(Registrar &r) {
  registerFor(r, {"aten::slice.Tensor", "aten::slice_copy.Tensor"}, "STRIDED_SLICE (int32 begin/end/strides)",
              std::make_shared<Slice>());
}

} // namespace tico::lowering
