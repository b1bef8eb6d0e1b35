// expand -> BROADCAST_TO with the result shape. -1 entries of the size list keep the input's
// dim; a symbolic result dim is read at runtime from its SymInt or from the input's shape.
// When every symbolic dim is a dim of an existing tensor the expansion is an ADD with zeros of
// the result shape instead (static_shapes.cpp), which keeps the shape inferable statically.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class Expand final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (!shapePieces(node.output()->shape(), &node.arg(1), node.input(0), false))
      return "the expanded shape " + shapeString(node.output()->shape()) +
             " has a symbolic dim this lowering cannot compute";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    auto pieces = shapePieces(node.output()->shape(), &node.arg(1), node.input(0), false);
    const Value *out = node.output();
    if (countSymbolic(out->shape()) > 0 && canBuildStatically(*pieces, out->dtype())) {
      int32_t zeros = emitZerosOfShape(emit, *pieces, out->shape(), out->dtype(), node.name());
      emitOp(emit, circle::BuiltinOperator::ADD, {emit.tensor(node.input(0)), zeros}, out,
             options(circle::AddOptionsT{}));
      return;
    }
    if (countSymbolic(out->shape()) > 0 && out->dtype() == DType::Bool && canBuildStatically(*pieces, DType::Int32)) {
      // bool has no ADD: the value-free broadcast adds int32 zeros to the 0/1 values and casts
      // back (exact), so the result's shape still follows from the input shapes.
      int32_t zeros = emitZerosOfShape(emit, *pieces, out->shape(), DType::Int32, node.name());
      int32_t flags = castedTensor(emit, node.input(0), DType::Int32, node.name() + "_int32");
      int32_t sum = emit.newTensor(DType::Int32, out->shape(), node.name() + "_int32_broadcast");
      emit.addOperator(circle::BuiltinOperator::ADD, {flags, zeros}, {sum}, options(circle::AddOptionsT{}));
      emitCastInto(emit, sum, DType::Int32, DType::Bool, emit.tensor(out));
      return;
    }
    int32_t shape = emitIntVector(emit, *pieces, node.name() + "_shape");
    emitOp(emit, circle::BuiltinOperator::BROADCAST_TO, {emit.tensor(node.input(0)), shape}, node.output(),
           options(circle::BroadcastToOptionsT{}));
  }
};

} // namespace

void registerBroadcast(Registrar &r) {
  registerFor(r, {ops::aten::expand_default, ops::aten::expand_copy_default}, "BROADCAST_TO", std::make_shared<Expand>());
}

} // namespace tico::lowering
