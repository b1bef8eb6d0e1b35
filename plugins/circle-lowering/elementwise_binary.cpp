// add / sub / rsub / mul / div / remainder (Tensor and Scalar overloads) -> ADD / SUB / MUL / DIV /
// FLOOR_DIV / FLOOR_MOD.
//
// Operands are brought to the node's result dtype first (PyTorch type promotion already
// decided it): tensors of another dtype get a CAST, Python scalars become rank-0 constants of
// the result dtype. `alpha` scales the second operand (the first one for rsub): folded into a
// scalar operand, a MUL for a tensor operand.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

enum class Arith { Add, Sub, ReverseSub, Mul, Div, Remainder };

class BinaryArithmetic final : public CheckedLowering {
public:
  explicit BinaryArithmetic(Arith kind) : kind_(kind) {}

  std::string check(const Node &node) const override {
    if (auto r = checkQuantized(node); r)
      return *r;
    DType dtype = node.output()->dtype();
    if (dtype == DType::Bool || !isNumericDType(dtype))
      return "arithmetic on " + std::string(torchDTypeName(dtype)) + " tensors is not supported";
    // Either operand may be a Python number (decompositions write rsub as sub(2.0, x)).
    for (std::size_t i = 0; i < 2; ++i)
      if (!node.arg(i).isValue() && !node.arg(i).isNumber())
        return "operand " + std::to_string(i + 1) + " is " + std::string(Argument::kindName(node.arg(i).kind()));
    if (const Argument *alpha = node.findArg("alpha"); alpha && !alpha->isNumber())
      return "alpha must be a number";
    if (const Argument *mode = node.findArg("rounding_mode"); mode && !mode->isNone()) {
      if (mode->asString() == "trunc")
        return "division with rounding_mode='trunc' has no Circle counterpart";
      if (mode->asString() != "floor")
        return "unknown rounding_mode '" + mode->asString() + "'";
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    DType dtype = out->dtype();
    double alpha = 1.0;
    if (const Argument *a = node.findArg("alpha"))
      alpha = a->asDouble();

    // The operand alpha multiplies: `other`, or `self` for rsub (other - alpha * self).
    auto operand = [&](const Argument &arg, bool scaled, const std::string &hint) {
      if (!arg.isValue())
        return scalarConstant(emit, dtype, arg.asDouble() * (scaled ? alpha : 1.0), hint);
      int32_t t = castedTensor(emit, arg.asValue(), dtype, hint);
      if (!scaled || alpha == 1.0)
        return t;
      const Value *v = arg.asValue();
      int32_t scaled_t = emit.newTensor(dtype, v->isTensor() ? v->shape() : Shape{1}, hint + "_alpha");
      emit.addOperator(circle::BuiltinOperator::MUL, {t, scalarConstant(emit, dtype, alpha, hint + "_alpha_value")},
                       {scaled_t}, options(circle::MulOptionsT{}));
      return scaled_t;
    };

    const std::string base = node.name();
    int32_t lhs = 0, rhs = 0;
    if (kind_ == Arith::ReverseSub) {
      lhs = operand(node.arg(1), false, base + "_lhs");
      rhs = operand(node.arg(0), true, base + "_rhs");
    } else {
      bool uses_alpha = kind_ == Arith::Add || kind_ == Arith::Sub;
      lhs = operand(node.arg(0), false, base + "_lhs");
      rhs = operand(node.arg(1), uses_alpha, base + "_rhs");
    }
    int32_t result = emit.tensor(out);
    switch (kind_) {
    case Arith::Add:
      emit.addOperator(circle::BuiltinOperator::ADD, {lhs, rhs}, {result}, options(circle::AddOptionsT{}));
      return;
    case Arith::Sub:
    case Arith::ReverseSub:
      emit.addOperator(circle::BuiltinOperator::SUB, {lhs, rhs}, {result}, options(circle::SubOptionsT{}));
      return;
    case Arith::Mul:
      emit.addOperator(circle::BuiltinOperator::MUL, {lhs, rhs}, {result}, options(circle::MulOptionsT{}));
      return;
    case Arith::Div: {
      const Argument *mode = node.findArg("rounding_mode");
      if (mode && !mode->isNone()) // "floor", check() rejected the rest
        emit.addOperator(circle::BuiltinOperator::FLOOR_DIV, {lhs, rhs}, {result}, options(circle::FloorDivOptionsT{}));
      else
        emit.addOperator(circle::BuiltinOperator::DIV, {lhs, rhs}, {result}, options(circle::DivOptionsT{}));
      return;
    }
    case Arith::Remainder:
      // torch.remainder takes the sign of the divisor (Python's %), as FLOOR_MOD does; torch.fmod
      // (sign of the dividend) is a different op.
      emit.addOperator(circle::BuiltinOperator::FLOOR_MOD, {lhs, rhs}, {result}, options(circle::FloorModOptionsT{}));
      return;
    }
  }

private:
  // For a node with quantized tensors: "" when its quantized kernel runs it (ADD, SUB, MUL of two
  // quantized tensors of one type into that type, alpha 1), else why not. nullopt for float nodes.
  std::optional<std::string> checkQuantized(const Node &node) const {
    std::vector<const Value *> values{node.output()};
    for (std::size_t i = 0; i < 2 && i < node.numArgs(); ++i)
      if (node.arg(i).isValue())
        values.push_back(node.arg(i).asValue());
    if (!anyQuantized(values))
      return std::nullopt;
    const char *what = kind_ == Arith::Add ? "ADD" : kind_ == Arith::Sub ? "SUB" : kind_ == Arith::Mul ? "MUL" : nullptr;
    if (what == nullptr)
      return std::string("no quantized kernel for this arithmetic (quantized ADD, SUB and MUL only)");
    if (values.size() != 3)
      return "quantized " + std::string(what) + " of a number operand (both operands must be quantized tensors)";
    if (const Argument *alpha = node.findArg("alpha"); alpha && !(alpha->isNumber() && alpha->asDouble() == 1.0))
      return "quantized " + std::string(what) + " with alpha other than 1";
    return quantizedSameType(values, what);
  }

  Arith kind_;
};

} // namespace

void registerElementwiseBinary(Registrar &r) {
  registerFor(r, {ops::aten::add_Tensor, ops::aten::add_Scalar}, "ADD (alpha scales the second operand)",
              std::make_shared<BinaryArithmetic>(Arith::Add));
  registerFor(r, {ops::aten::sub_Tensor, ops::aten::sub_Scalar}, "SUB (alpha scales the second operand)",
              std::make_shared<BinaryArithmetic>(Arith::Sub));
  registerFor(r, {ops::aten::rsub_Tensor, ops::aten::rsub_Scalar}, "SUB with swapped operands",
              std::make_shared<BinaryArithmetic>(Arith::ReverseSub));
  registerFor(r, {ops::aten::mul_Tensor, ops::aten::mul_Scalar}, "MUL", std::make_shared<BinaryArithmetic>(Arith::Mul));
  registerFor(r, {ops::aten::div_Tensor, ops::aten::div_Scalar, ops::aten::div_Tensor_mode, ops::aten::div_Scalar_mode},
              "DIV, or FLOOR_DIV for rounding_mode='floor'", std::make_shared<BinaryArithmetic>(Arith::Div));
  registerFor(r, {ops::aten::remainder_Tensor, ops::aten::remainder_Scalar, ops::aten::remainder_Scalar_Tensor},
              "FLOOR_MOD (the result takes the divisor's sign)", std::make_shared<BinaryArithmetic>(Arith::Remainder));
}

} // namespace tico::lowering
