// Element-wise math that Circle spells differently from PyTorch:
//   pow (Tensor_Scalar / Tensor_Tensor / Scalar) -> POW (integer results computed in float32
//     and cast back, as Circle's POW is a float kernel);
//   reciprocal -> DIV(1, x); log1p -> LOG(x + 1); round / floor / ceil -> ROUND / FLOOR / CEIL;
//   square -> MUL(x, x); hardsigmoid -> RELU6(x + 3) / 6.
//
// log1p as LOG(x + 1) loses the precision log1p keeps for |x| << 1 (absolute error about
// 1e-7 near 0, as the original converter accepts).
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

#include <cmath>

namespace tico::lowering {
namespace {

DType operandDType(const Argument &arg) {
  if (arg.isValue())
    return arg.asValue()->dtype();
  return arg.isFloat() ? DType::Float32 : DType::Int64;
}

int32_t operandAs(CircleEmitter &emit, const Argument &arg, DType dtype, const std::string &hint) {
  if (arg.isValue())
    return castedTensor(emit, arg.asValue(), dtype, hint);
  return scalarConstant(emit, dtype, arg.asDouble(), hint);
}

class Pow final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    DType out = node.output()->dtype();
    if (out == DType::Bool || !isNumericDType(out) || out == DType::Float64)
      return "pow producing " + std::string(torchDTypeName(out)) + " is not supported";
    for (std::size_t i = 0; i < 2; ++i)
      if (!node.arg(i).isValue() && !node.arg(i).isNumber())
        return "pow operands must be tensors or numbers";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    const std::string base = node.name();
    // POW runs in float32; an integer result is cast back (exact for the integer powers that
    // fit float32's 24-bit mantissa).
    int32_t x = operandAs(emit, node.arg(0), DType::Float32, base + "_base");
    int32_t y = operandAs(emit, node.arg(1), DType::Float32, base + "_exponent");
    if (out->dtype() == DType::Float32) {
      emitOp(emit, circle::BuiltinOperator::POW, {x, y}, out, options(circle::PowOptionsT{}));
      return;
    }
    int32_t f = emit.newTensor(DType::Float32, out->shape(), base + "_float");
    emit.addOperator(circle::BuiltinOperator::POW, {x, y}, {f}, options(circle::PowOptionsT{}));
    // Round to the nearest integer first: CAST truncates, and powf may land a hair below.
    int32_t rounded = emit.newTensor(DType::Float32, out->shape(), base + "_rounded");
    emit.addOperator(circle::BuiltinOperator::ROUND, {f}, {rounded});
    emitCastInto(emit, rounded, DType::Float32, out->dtype(), emit.tensor(out));
  }
};

enum class Math { Reciprocal, Log1p, Square, HardSigmoid };

class FloatMath final : public CheckedLowering {
public:
  explicit FloatMath(Math kind) : kind_(kind) {}

  std::string check(const Node &node) const override {
    if (node.output()->dtype() != DType::Float32)
      return "computed in float32; the result is " + std::string(torchDTypeName(node.output()->dtype()));
    if (!isNumericDType(node.input(0)->dtype()))
      return "unsupported input type " + std::string(torchDTypeName(node.input(0)->dtype()));
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    int32_t x = castedTensor(emit, in, DType::Float32, base + "_input");
    switch (kind_) {
    case Math::Reciprocal:
      emitOp(emit, circle::BuiltinOperator::DIV, {emit.scalarFloat(1.0f, base + "_one"), x}, out,
             options(circle::DivOptionsT{}));
      return;
    case Math::Log1p: {
      int32_t shifted = emit.newTensor(DType::Float32, in->shape(), base + "_plus_one");
      emit.addOperator(circle::BuiltinOperator::ADD, {x, emit.scalarFloat(1.0f, base + "_one")}, {shifted},
                       options(circle::AddOptionsT{}));
      emitOp(emit, circle::BuiltinOperator::LOG, {shifted}, out);
      return;
    }
    case Math::Square:
      emitOp(emit, circle::BuiltinOperator::MUL, {x, x}, out, options(circle::MulOptionsT{}));
      return;
    case Math::HardSigmoid: {
      int32_t shifted = emit.newTensor(DType::Float32, in->shape(), base + "_plus_three");
      emit.addOperator(circle::BuiltinOperator::ADD, {x, emit.scalarFloat(3.0f, base + "_three")}, {shifted},
                       options(circle::AddOptionsT{}));
      int32_t clipped = emit.newTensor(DType::Float32, in->shape(), base + "_relu6");
      emit.addOperator(circle::BuiltinOperator::RELU6, {shifted}, {clipped});
      emitOp(emit, circle::BuiltinOperator::MUL, {clipped, emit.scalarFloat(1.0f / 6.0f, base + "_sixth")}, out,
             options(circle::MulOptionsT{}));
      return;
    }
    }
  }

private:
  Math kind_;
};

// round / floor / ceil: float32 kernels; on integer tensors PyTorch returns the input.
class Rounding final : public CheckedLowering {
public:
  explicit Rounding(circle::BuiltinOperator op) : op_(op) {}
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->dtype() != node.output()->dtype())
      return "rounding that changes the element type is not supported";
    if (const Argument *decimals = node.findArg("decimals"); decimals && decimals->asInt() != 0)
      return "round with decimals != 0 is not supported";
    if (in->dtype() == DType::Float32 || isInteger(in->dtype()))
      return {};
    return std::string(circle::EnumNameBuiltinOperator(op_)) + " is computed in float32; '" + in->name() + "' is " +
           std::string(torchDTypeName(in->dtype()));
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    if (isInteger(in->dtype())) {
      emitIdentity(emit, emit.tensor(in), in->rank(), emit.tensor(node.output()), node.name());
      return;
    }
    emitOp(emit, op_, {emit.tensor(in)}, node.output());
  }

private:
  circle::BuiltinOperator op_;
};

} // namespace

void registerUnaryMath(Registrar &r) {
  registerFor(r, {ops::aten::pow_Tensor_Scalar, ops::aten::pow_Tensor_Tensor, ops::aten::pow_Scalar},
              "POW in float32 (integer results rounded and cast back)", std::make_shared<Pow>());
  registerFor(r, {ops::aten::reciprocal_default}, "DIV(1, x)", std::make_shared<FloatMath>(Math::Reciprocal));
  registerFor(r, {ops::aten::log1p_default}, "ADD(x, 1) + LOG", std::make_shared<FloatMath>(Math::Log1p));
  registerFor(r, {ops::aten::square_default}, "MUL(x, x)", std::make_shared<FloatMath>(Math::Square));
  registerFor(r, {ops::aten::hardsigmoid_default}, "ADD 3 + RELU6 + MUL 1/6",
              std::make_shared<FloatMath>(Math::HardSigmoid));
  registerFor(r, {ops::aten::round_default, ops::aten::round_decimals}, "ROUND (half to even, as PyTorch)",
              std::make_shared<Rounding>(circle::BuiltinOperator::ROUND));
  registerFor(r, {ops::aten::floor_default}, "FLOOR", std::make_shared<Rounding>(circle::BuiltinOperator::FLOOR));
  registerFor(r, {ops::aten::ceil_default}, "CEIL", std::make_shared<Rounding>(circle::BuiltinOperator::CEIL));
}

} // namespace tico::lowering
