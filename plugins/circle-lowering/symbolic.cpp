// Symbolic integers at runtime: sym_size.int -> SHAPE + GATHER, and the Python integer
// arithmetic torch.export records between them (_operator.add/sub/mul/floordiv/mod,
// torch.sym_max/sym_min) -> ADD / SUB / MUL / FLOOR_DIV / FLOOR_MOD / MAXIMUM / MINIMUM.
//
// A SymInt lives in Circle as an int32 tensor of shape [1]. The serializer lowers these nodes
// only when a lowering asks for the SymInt's tensor (a RESHAPE or BROADCAST_TO that needs a
// runtime shape), so models whose shapes fold to constants or to a single -1 carry none of it.
//
// The convert-sym-size-to-circle-shape pass spells sym_size out in the IR instead:
// circle::shape (SHAPE, int32) + slice (STRIDED_SLICE) + _local_scalar_dense, which reads the
// one-element int tensor as the SymInt (an alias of the int32 [1] tensor).
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

namespace tico::lowering {
namespace {

class SymSize final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    normalizeDim(node.arg(1).asInt(), node.input(0)->rank());
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    VectorPiece piece;
    piece.kind = VectorPiece::Kind::InputDim;
    piece.input = in;
    piece.value = normalizeDim(node.arg(1).asInt(), in->rank());
    emit.alias(node.output(), emitIntVector(emit, {piece}, node.name()));
  }
};

class CircleShape final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.output()->dtype() != DType::Int32)
      return "circle::shape produces int32";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    circle::ShapeOptionsT shape;
    shape.out_type = circle::TensorType::INT32;
    emitOp(emit, circle::BuiltinOperator::SHAPE, {emit.tensor(node.input(0))}, node.output(),
           options(std::move(shape)));
  }
};

// _local_scalar_dense of a one-element integer tensor producing a SymInt: the SymInt is that
// tensor, as int32 [1].
class TensorToSymInt final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (node.output()->kind() != ValueKind::SymInt)
      return "only integer scalars read from tensors are supported";
    if (in->dtype() != DType::Int32 && in->dtype() != DType::Int64)
      return "the tensor must hold an integer";
    if (countSymbolic(in->shape()) > 0 || numElementsHint(in->shape()) != 1)
      return "the tensor must have exactly one element";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int32_t t = castedTensor(emit, in, DType::Int32, node.name() + "_int32");
    if (in->rank() == 1) {
      emit.alias(node.output(), t);
      return;
    }
    int32_t vector = emit.newTensor(DType::Int32, Shape{1}, node.name());
    emit.addOperator(circle::BuiltinOperator::RESHAPE, {t, emit.constInt32({1}, node.name() + "_shape")}, {vector},
                     options(circle::ReshapeOptionsT{}));
    emit.alias(node.output(), vector);
  }
};

class SymArith final : public CheckedLowering {
public:
  explicit SymArith(circle::BuiltinOperator op) : op_(op) {}

  std::string check(const Node &node) const override {
    if (node.numOutputs() != 1 || node.output()->kind() != ValueKind::SymInt)
      return "only integer symbolic arithmetic is supported";
    if (node.numArgs() != 2)
      return "expected two operands";
    for (std::size_t i = 0; i < 2; ++i) {
      const Argument &a = node.arg(i);
      if (!a.isInt() && !(a.isValue() && a.asValue()->kind() == ValueKind::SymInt))
        return "operands must be ints or SymInts";
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    std::vector<int32_t> operands;
    for (std::size_t i = 0; i < 2; ++i) {
      const Argument &a = node.arg(i);
      operands.push_back(a.isInt() ? emit.constInt32({toInt32(a.asInt(), "symbolic operand")},
                                                     node.name() + "_operand" + std::to_string(i))
                                   : emit.tensor(a.asValue()));
    }
    emitOp(emit, op_, operands, node.output(), optionsFor(op_));
  }

private:
  static circle::BuiltinOptionsUnion optionsFor(circle::BuiltinOperator op) {
    using Op = circle::BuiltinOperator;
    switch (op) {
    case Op::ADD: return options(circle::AddOptionsT{});
    case Op::SUB: return options(circle::SubOptionsT{});
    case Op::MUL: return options(circle::MulOptionsT{});
    case Op::FLOOR_DIV: return options(circle::FloorDivOptionsT{});
    case Op::FLOOR_MOD: return options(circle::FloorModOptionsT{});
    default: return options(circle::MaximumMinimumOptionsT{});
    }
  }

  circle::BuiltinOperator op_;
};

} // namespace

void registerSymbolic(Registrar &r) {
  using Op = circle::BuiltinOperator;
  registerFor(r, {ops::aten::sym_size_int}, "SHAPE + GATHER (an int32 [1] tensor)", std::make_shared<SymSize>());
  registerFor(r, {ops::circle::shape_default}, "SHAPE (int32)", std::make_shared<CircleShape>());
  registerFor(r, {ops::aten::_local_scalar_dense_default}, "the one-element int tensor as a SymInt (int32 [1])",
              std::make_shared<TensorToSymInt>());
  registerFor(r, {ops::_operator::add_default}, "ADD on int32 [1] tensors", std::make_shared<SymArith>(Op::ADD));
  registerFor(r, {ops::_operator::sub_default}, "SUB on int32 [1] tensors", std::make_shared<SymArith>(Op::SUB));
  registerFor(r, {ops::_operator::mul_default}, "MUL on int32 [1] tensors", std::make_shared<SymArith>(Op::MUL));
  registerFor(r, {ops::_operator::floordiv_default}, "FLOOR_DIV on int32 [1] tensors", std::make_shared<SymArith>(Op::FLOOR_DIV));
  registerFor(r, {ops::_operator::mod_default}, "FLOOR_MOD on int32 [1] tensors", std::make_shared<SymArith>(Op::FLOOR_MOD));
  registerFor(r, {ops::torch::sym_max_default}, "MAXIMUM on int32 [1] tensors", std::make_shared<SymArith>(Op::MAXIMUM));
  registerFor(r, {ops::torch::sym_min_default}, "MINIMUM on int32 [1] tensors", std::make_shared<SymArith>(Op::MINIMUM));
}

} // namespace tico::lowering
