// Symbolic integers at runtime: sym_size.int -> SHAPE + GATHER, and the Python integer
// arithmetic torch.export records between them (_operator.add/sub/mul/floordiv/mod,
// torch.sym_max/sym_min) -> ADD / SUB / MUL / FLOOR_DIV / FLOOR_MOD / MAXIMUM / MINIMUM.
//
// A SymInt lives in Circle as an int32 tensor of shape [1]. The serializer lowers these nodes
// only when a lowering asks for the SymInt's tensor (a RESHAPE or BROADCAST_TO that needs a
// runtime shape), so models whose shapes fold to constants or to a single -1 carry none of it.
#include "lowerings.h"
#include "support.h"

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
  registerFor(r, {"aten::sym_size.int"}, "SHAPE + GATHER (an int32 [1] tensor)", std::make_shared<SymSize>());
  registerFor(r, {"_operator::add"}, "ADD on int32 [1] tensors", std::make_shared<SymArith>(Op::ADD));
  registerFor(r, {"_operator::sub"}, "SUB on int32 [1] tensors", std::make_shared<SymArith>(Op::SUB));
  registerFor(r, {"_operator::mul"}, "MUL on int32 [1] tensors", std::make_shared<SymArith>(Op::MUL));
  registerFor(r, {"_operator::floordiv"}, "FLOOR_DIV on int32 [1] tensors", std::make_shared<SymArith>(Op::FLOOR_DIV));
  registerFor(r, {"_operator::mod"}, "FLOOR_MOD on int32 [1] tensors", std::make_shared<SymArith>(Op::FLOOR_MOD));
  registerFor(r, {"torch::sym_max"}, "MAXIMUM on int32 [1] tensors", std::make_shared<SymArith>(Op::MAXIMUM));
  registerFor(r, {"torch::sym_min"}, "MINIMUM on int32 [1] tensors", std::make_shared<SymArith>(Op::MINIMUM));
}

} // namespace tico::lowering
