// topk -> TOPK_V2 (the k largest along the last axis, sorted descending, int32 indices).
//
// Another dim is moved last with a TRANSPOSE around it (both outputs moved back);
// largest=False takes the top k of the negated input and negates the values back; the int32
// indices are cast to PyTorch's int64. Equal values come in index order on both sides.
// sorted=False leaves PyTorch free to return any order; the sorted order is one of them.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class TopK final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *x = node.input(0);
    if (x->rank() == 0)
      return "topk of a rank-0 tensor";
    if (!node.arg("k").isInt())
      return "topk with a symbolic k";
    if (x->dtype() != DType::Float32 && x->dtype() != DType::Int32 && x->dtype() != DType::Int64)
      return "TOPK_V2 takes float32, int32 and int64 tensors, not " + std::string(torchDTypeName(x->dtype()));
    const int64_t dim = normalizeDim(node.arg("dim").asInt(), x->rank());
    const Dim &n = x->shape()[static_cast<std::size_t>(dim)];
    if (n.isStatic() && node.arg("k").asInt() > n.value())
      return "k is larger than the dim";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *x = node.input(0);
    const std::string base = node.name();
    const int64_t rank = x->rank();
    const int64_t dim = normalizeDim(node.arg("dim").asInt(), rank);
    const int64_t k = node.arg("k").asInt();
    const bool largest = node.arg("largest").asBool();

    std::vector<int64_t> perm = swapWithLast(dim, rank);
    const bool moved = dim != rank - 1;
    Shape in_shape = moved ? permuteShape(x->shape(), perm) : x->shape();
    int32_t input = emit.tensor(x);
    if (moved)
      input = emitTranspose(emit, input, x->dtype(), x->shape(), perm, base + "_last");
    if (!largest) {
      int32_t negated = emit.newTensor(x->dtype(), in_shape, base + "_negated");
      emit.addOperator(circle::BuiltinOperator::NEG, {input}, {negated}, options(circle::NegOptionsT{}));
      input = negated;
    }
    Shape out_shape = in_shape;
    out_shape.back() = k;
    int32_t values = emit.newTensor(x->dtype(), out_shape, base + "_values");
    int32_t indices = emit.newTensor(DType::Int32, out_shape, base + "_indices");
    emit.addOperator(circle::BuiltinOperator::TOPK_V2, {input, emit.constInt32({toInt32(k, "k")}, base + "_k")},
                     {values, indices}, options(circle::TopKV2OptionsT{}));
    if (!largest) {
      int32_t restored = emit.newTensor(x->dtype(), out_shape, base + "_values_restored");
      emit.addOperator(circle::BuiltinOperator::NEG, {values}, {restored}, options(circle::NegOptionsT{}));
      values = restored;
    }
    const Value *out_values = node.output(0);
    const Value *out_indices = node.output(1);
    if (!moved) {
      emit.alias(out_values, values);
      emitCastInto(emit, indices, DType::Int32, DType::Int64, emit.tensor(out_indices));
      return;
    }
    int32_t wide = emit.newTensor(DType::Int64, out_shape, base + "_indices_int64");
    emitCastInto(emit, indices, DType::Int32, DType::Int64, wide);
    emitTransposeInto(emit, values, perm, emit.tensor(out_values), base + "_values_back");
    emitTransposeInto(emit, wide, perm, emit.tensor(out_indices), base + "_indices_back");
  }
};

} // namespace

void registerTopK(Registrar &r) {
  registerFor(r, {ops::aten::topk_default}, "TOPK_V2 along the last dim (TRANSPOSE around it otherwise; NEG for smallest)",
              std::make_shared<TopK>());
}

} // namespace tico::lowering
