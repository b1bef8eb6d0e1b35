// Comparisons, logic and selection: eq/ne/gt/ge/lt/le (Tensor and Scalar) -> EQUAL /
// NOT_EQUAL / GREATER / GREATER_EQUAL / LESS / LESS_EQUAL; logical_and/or/not ->
// LOGICAL_AND/OR/NOT; where -> SELECT_V2; maximum/minimum -> MAXIMUM/MINIMUM.
//
// Comparison operands are compared in the dtype PyTorch would promote them to (the result is
// bool, so the node does not record it): a float operand makes the comparison float, a
// Python float against an integer tensor makes it float32, otherwise the tensor's dtype.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

DType operandDType(const Argument &arg) {
  if (arg.isValue())
    return arg.asValue()->isTensor() ? arg.asValue()->dtype() : DType::Int32;
  return arg.isFloat() ? DType::Float32 : arg.isBool() ? DType::Bool : DType::Int64;
}

// PyTorch's promotion for a comparison of `a` (a tensor) with `b`, reduced to the dtypes the
// lowerings handle.
DType comparisonDType(const Argument &a, const Argument &b) {
  DType ta = operandDType(a);
  DType tb = operandDType(b);
  if (!b.isValue()) // a Python scalar only matters when it is a float against an integer tensor
    return b.isFloat() && !isFloating(ta) ? DType::Float32 : ta;
  if (ta == tb)
    return ta;
  if (isFloating(ta) != isFloating(tb))
    return isFloating(ta) ? ta : tb;
  if (ta == DType::Bool || tb == DType::Bool)
    return ta == DType::Bool ? tb : ta;
  return elementSize(ta) >= elementSize(tb) ? ta : tb;
}

int32_t operandTensor(CircleEmitter &emit, const Argument &arg, DType dtype, const std::string &hint) {
  if (arg.isValue())
    return castedTensor(emit, arg.asValue(), dtype, hint);
  return scalarConstant(emit, dtype, arg.asDouble(), hint);
}

circle::BuiltinOptionsUnion optionsFor(circle::BuiltinOperator op) {
  using Op = circle::BuiltinOperator;
  switch (op) {
  case Op::EQUAL: return options(circle::EqualOptionsT{});
  case Op::NOT_EQUAL: return options(circle::NotEqualOptionsT{});
  case Op::GREATER: return options(circle::GreaterOptionsT{});
  case Op::GREATER_EQUAL: return options(circle::GreaterEqualOptionsT{});
  case Op::LESS: return options(circle::LessOptionsT{});
  case Op::LESS_EQUAL: return options(circle::LessEqualOptionsT{});
  case Op::LOGICAL_AND: return options(circle::LogicalAndOptionsT{});
  case Op::LOGICAL_OR: return options(circle::LogicalOrOptionsT{});
  case Op::LOGICAL_NOT: return options(circle::LogicalNotOptionsT{});
  case Op::SELECT_V2: return options(circle::SelectV2OptionsT{});
  default: return options(circle::MaximumMinimumOptionsT{});
  }
}

class Compare final : public CheckedLowering {
public:
  explicit Compare(circle::BuiltinOperator op) : op_(op) {}
  std::string check(const Node &node) const override {
    const Argument &other = node.arg(1);
    if (!other.isValue() && !other.isNumber())
      return "the second operand is " + std::string(Argument::kindName(other.kind()));
    DType dtype = comparisonDType(node.arg(0), other);
    if (!isNumericDType(dtype))
      return "comparison of " + std::string(torchDTypeName(dtype)) + " tensors is not supported";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    DType dtype = comparisonDType(node.arg(0), node.arg(1));
    int32_t a = operandTensor(emit, node.arg(0), dtype, node.name() + "_lhs");
    int32_t b = operandTensor(emit, node.arg(1), dtype, node.name() + "_rhs");
    emitOp(emit, op_, {a, b}, node.output(), optionsFor(op_));
  }

private:
  circle::BuiltinOperator op_;
};

// logical_* take any dtype in PyTorch (non-zero is true); Circle needs bool operands.
// Logical ops of bool tensors. The logical_* ops (not the bitwise_* ones) also take numbers of
// any dtype, read as "x != 0" (PyTorch's truthiness), which a NOT_EQUAL with zero computes.
class Logical final : public CheckedLowering {
public:
  Logical(circle::BuiltinOperator op, bool truthy) : op_(op), truthy_(truthy) {}
  std::string check(const Node &node) const override {
    if (node.output()->dtype() != DType::Bool)
      return "logical ops with a non-bool result are not supported";
    for (std::size_t i = 0; i < node.numArgs(); ++i)
      if (node.arg(i).isValue() && node.input(i)->dtype() != DType::Bool &&
          !(truthy_ && isNumericDType(node.input(i)->dtype())))
        return "logical ops on non-bool tensors are not supported";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    std::vector<int32_t> inputs;
    for (std::size_t i = 0; i < node.numArgs(); ++i) {
      const Value *in = node.input(i);
      if (in->dtype() == DType::Bool) {
        inputs.push_back(emit.tensor(in));
        continue;
      }
      const std::string hint = node.name() + "_truth" + std::to_string(i);
      int32_t truth = emit.newTensor(DType::Bool, in->shape(), hint);
      emit.addOperator(circle::BuiltinOperator::NOT_EQUAL,
                       {emit.tensor(in), scalarConstant(emit, in->dtype(), 0.0, hint + "_zero")}, {truth},
                       options(circle::NotEqualOptionsT{}));
      inputs.push_back(truth);
    }
    emitOp(emit, op_, inputs, node.output(), optionsFor(op_));
  }

private:
  circle::BuiltinOperator op_;
  bool truthy_;
};

class Where final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.input(0)->dtype() != DType::Bool)
      return "where needs a bool condition";
    DType dtype = node.output()->dtype();
    if (!isNumericDType(dtype))
      return "where producing " + std::string(torchDTypeName(dtype)) + " is not supported";
    for (std::size_t i : {std::size_t{1}, std::size_t{2}})
      if (!node.arg(i).isValue() && !node.arg(i).isNumber())
        return "where operands must be tensors or numbers";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    DType dtype = node.output()->dtype();
    int32_t a = operandTensor(emit, node.arg(1), dtype, node.name() + "_true");
    int32_t b = operandTensor(emit, node.arg(2), dtype, node.name() + "_false");
    emitOp(emit, circle::BuiltinOperator::SELECT_V2, {emit.tensor(node.input(0)), a, b}, node.output(),
           optionsFor(circle::BuiltinOperator::SELECT_V2));
  }
};

// masked_fill(self, mask, value) = where(mask, value, self).
class MaskedFill final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.input(1)->dtype() != DType::Bool)
      return "masked_fill needs a bool mask";
    DType dtype = node.output()->dtype();
    if (!isNumericDType(dtype))
      return "masked_fill of " + std::string(torchDTypeName(dtype)) + " tensors is not supported";
    const Argument &value = node.arg(2);
    if (!value.isNumber() && !value.isValue())
      return "the fill value must be a number or a tensor";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    DType dtype = node.output()->dtype();
    int32_t value = operandTensor(emit, node.arg(2), dtype, node.name() + "_value");
    int32_t self = castedTensor(emit, node.input(0), dtype, node.name() + "_self");
    emitOp(emit, circle::BuiltinOperator::SELECT_V2, {emit.tensor(node.input(1)), value, self}, node.output(),
           optionsFor(circle::BuiltinOperator::SELECT_V2));
  }
};

class MinMax final : public CheckedLowering {
public:
  explicit MinMax(circle::BuiltinOperator op) : op_(op) {}
  std::string check(const Node &node) const override {
    DType dtype = node.output()->dtype();
    if (dtype == DType::Bool || !isNumericDType(dtype))
      return std::string(circle::EnumNameBuiltinOperator(op_)) + " of " + std::string(torchDTypeName(dtype)) +
             " tensors is not supported";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    DType dtype = node.output()->dtype();
    int32_t a = castedTensor(emit, node.input(0), dtype, node.name() + "_lhs");
    int32_t b = castedTensor(emit, node.input(1), dtype, node.name() + "_rhs");
    emitOp(emit, op_, {a, b}, node.output(), optionsFor(op_));
  }

private:
  circle::BuiltinOperator op_;
};

} // namespace

void registerComparison(Registrar &r) {
  using Op = circle::BuiltinOperator;
  registerFor(r, {ops::aten::eq_Tensor, ops::aten::eq_Scalar}, "EQUAL", std::make_shared<Compare>(Op::EQUAL));
  registerFor(r, {ops::aten::ne_Tensor, ops::aten::ne_Scalar}, "NOT_EQUAL", std::make_shared<Compare>(Op::NOT_EQUAL));
  registerFor(r, {ops::aten::gt_Tensor, ops::aten::gt_Scalar}, "GREATER", std::make_shared<Compare>(Op::GREATER));
  registerFor(r, {ops::aten::ge_Tensor, ops::aten::ge_Scalar}, "GREATER_EQUAL", std::make_shared<Compare>(Op::GREATER_EQUAL));
  registerFor(r, {ops::aten::lt_Tensor, ops::aten::lt_Scalar}, "LESS", std::make_shared<Compare>(Op::LESS));
  registerFor(r, {ops::aten::le_Tensor, ops::aten::le_Scalar}, "LESS_EQUAL", std::make_shared<Compare>(Op::LESS_EQUAL));
  registerFor(r, {ops::aten::logical_and_default}, "LOGICAL_AND (non-bool operands: NOT_EQUAL 0 first)",
              std::make_shared<Logical>(Op::LOGICAL_AND, true));
  registerFor(r, {ops::aten::logical_or_default}, "LOGICAL_OR (non-bool operands: NOT_EQUAL 0 first)",
              std::make_shared<Logical>(Op::LOGICAL_OR, true));
  registerFor(r, {ops::aten::logical_not_default}, "LOGICAL_NOT (non-bool operand: NOT_EQUAL 0 first)",
              std::make_shared<Logical>(Op::LOGICAL_NOT, true));
  registerFor(r, {ops::aten::logical_xor_default}, "NOT_EQUAL of bool operands (non-bool: NOT_EQUAL 0 first)",
              std::make_shared<Logical>(Op::NOT_EQUAL, true));
  registerFor(r, {ops::aten::bitwise_not_default}, "LOGICAL_NOT (bool operand)",
              std::make_shared<Logical>(Op::LOGICAL_NOT, false));
  registerFor(r, {ops::aten::bitwise_xor_Tensor, ops::aten::__xor___Tensor}, "NOT_EQUAL of bool operands",
              std::make_shared<Logical>(Op::NOT_EQUAL, false));
  registerFor(r, {ops::aten::bitwise_and_Tensor, ops::aten::__and___Tensor}, "LOGICAL_AND (bool operands)",
              std::make_shared<Logical>(Op::LOGICAL_AND, false));
  registerFor(r, {ops::aten::bitwise_or_Tensor, ops::aten::__or___Tensor}, "LOGICAL_OR (bool operands)",
              std::make_shared<Logical>(Op::LOGICAL_OR, false));
  registerFor(r, {ops::aten::masked_fill_Scalar, ops::aten::masked_fill_Tensor}, "SELECT_V2(mask, value, self)",
              std::make_shared<MaskedFill>());
  registerFor(r, {ops::aten::where_self, ops::aten::where_ScalarSelf, ops::aten::where_ScalarOther, ops::aten::where_Scalar},
              "SELECT_V2 (number operands become constants)", std::make_shared<Where>());
  registerFor(r, {ops::aten::maximum_default, ops::aten::max_other}, "MAXIMUM", std::make_shared<MinMax>(Op::MAXIMUM));
  registerFor(r, {ops::aten::minimum_default, ops::aten::min_other}, "MINIMUM", std::make_shared<MinMax>(Op::MINIMUM));
}

} // namespace tico::lowering
