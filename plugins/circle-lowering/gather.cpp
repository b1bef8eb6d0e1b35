// embedding -> GATHER(weight, indices, axis 0); select.int -> GATHER with a rank-0 index;
// index_select -> GATHER along dim.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

circle::BuiltinOptionsUnion gatherOptions(int64_t axis) {
  circle::GatherOptionsT gather;
  gather.axis = toInt32(axis, "axis");
  return options(std::move(gather));
}

std::string checkIndices(const Value *indices) {
  if (indices->dtype() != DType::Int32 && indices->dtype() != DType::Int64)
    return "GATHER indices must be int32 or int64; '" + indices->name() + "' is " +
           std::string(torchDTypeName(indices->dtype()));
  return {};
}

class Embedding final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.input(0)->rank() != 2)
      return "embedding weight must be 2-D";
    return checkIndices(node.input(1));
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    // padding_idx and scale_grad_by_freq only affect gradients.
    emitOp(emit, circle::BuiltinOperator::GATHER, {emit.tensor(node.input(0)), emit.tensor(node.input(1))},
           node.output(), gatherOptions(0));
  }
};

class IndexSelect final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    normalizeDim(node.arg(1).asInt(), node.input(0)->rank());
    if (node.input(2)->rank() > 1)
      return "index_select needs a 0-D or 1-D index";
    return checkIndices(node.input(2));
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    int64_t dim = normalizeDim(node.arg(1).asInt(), node.input(0)->rank());
    emitOp(emit, circle::BuiltinOperator::GATHER, {emit.tensor(node.input(0)), emit.tensor(node.input(2))},
           node.output(), gatherOptions(dim));
  }
};

// select(dim, index): GATHER with a rank-0 index removes the dim. A negative index counts from
// the end, which needs the dim's size.
class Select final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "select on a 0-D tensor";
    int64_t dim = normalizeDim(node.arg(1).asInt(), in->rank());
    const Argument &index = node.arg(2);
    if (!index.isInt())
      return "select with a symbolic index is not supported";
    const Dim &size = in->shape()[static_cast<std::size_t>(dim)];
    if (index.asInt() < 0 && size.isSymbolic())
      return "select with a negative index on a symbolic dim is not supported";
    if (size.isStatic() && (index.asInt() >= size.value() || index.asInt() < -size.value()))
      return "select index " + std::to_string(index.asInt()) + " is out of range for size " +
             std::to_string(size.value());
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int64_t dim = normalizeDim(node.arg(1).asInt(), in->rank());
    int64_t index = node.arg(2).asInt();
    if (index < 0)
      index += in->shape()[static_cast<std::size_t>(dim)].value();
    int32_t index_t = emit.constant(
        std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {}, {toInt32(index, "index")})),
        node.name() + "_index");
    emitOp(emit, circle::BuiltinOperator::GATHER, {emit.tensor(in), index_t}, node.output(),
           gatherOptions(dim));
  }
};

} // namespace

void registerGather(Registrar &r) {
  registerFor(r, {ops::aten::embedding_default}, "GATHER(weight, indices, axis 0)", std::make_shared<Embedding>());
  registerFor(r, {ops::aten::index_select_default}, "GATHER along dim", std::make_shared<IndexSelect>());
  registerFor(r, {ops::aten::select_int, ops::aten::select_copy_int}, "GATHER with a rank-0 index",
              std::make_shared<Select>());
}

} // namespace tico::lowering
