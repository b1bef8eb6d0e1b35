#include "scalar_ops.h"

#include "node_inputs.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>

namespace tico::aten_eval {
namespace {

// A Python number: the arithmetic rules of int, float and bool differ (int // int stays int,
// int / int is float, bool + bool is int), and the result kind follows them.
struct Number {
  enum class Kind { Int, Float, Bool } kind = Kind::Int;
  double value = 0;
  bool isIntegral() const { return kind != Kind::Float; }
  int64_t asInt() const { return static_cast<int64_t>(value); }
};

Number intNumber(int64_t v) { return {Number::Kind::Int, static_cast<double>(v)}; }
Number floatNumber(double v) { return {Number::Kind::Float, v}; }
Number boolNumber(bool v) { return {Number::Kind::Bool, v ? 1.0 : 0.0}; }

Number operand(const Node &node, std::size_t index, const EvalEnv &env) {
  if (index >= node.numArgs())
    throw nodeError(node, "expects at least " + std::to_string(index + 1) + " arguments");
  const Argument &arg = node.arg(index);
  switch (arg.kind()) {
  case Argument::Kind::Int:
    return intNumber(arg.asInt());
  case Argument::Kind::Float:
    return floatNumber(arg.asDouble());
  case Argument::Kind::Bool:
    return boolNumber(arg.asBool());
  case Argument::Kind::Value: {
    const Value *v = arg.asValue();
    double x = lookupScalar(node, v, env);
    switch (v->kind()) {
    case ValueKind::SymInt:
      return intNumber(static_cast<int64_t>(x));
    case ValueKind::SymFloat:
      return floatNumber(x);
    case ValueKind::SymBool:
      return boolNumber(x != 0);
    case ValueKind::Tensor:
      break;
    }
    throw nodeError(node, "argument " + std::to_string(index) + " is a tensor, not a Python scalar");
  }
  default:
    throw nodeError(node, std::string("argument ") + std::to_string(index) + " is a " +
                              Argument::kindName(arg.kind()) + ", not a Python scalar");
  }
}

// Python's floor division and modulo round toward negative infinity.
int64_t floorDivInt(const Node &node, int64_t a, int64_t b) {
  if (b == 0)
    throw nodeError(node, "integer division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

Number pyFloorDiv(const Node &node, Number a, Number b) {
  if (a.isIntegral() && b.isIntegral())
    return intNumber(floorDivInt(node, a.asInt(), b.asInt()));
  if (b.value == 0)
    throw nodeError(node, "float floor division by zero");
  return floatNumber(std::floor(a.value / b.value));
}

Number pyMod(const Node &node, Number a, Number b) {
  if (a.isIntegral() && b.isIntegral()) {
    int64_t x = a.asInt(), y = b.asInt();
    return intNumber(x - floorDivInt(node, x, y) * y);
  }
  if (b.value == 0)
    throw nodeError(node, "float modulo by zero");
  double r = std::fmod(a.value, b.value);
  if (r != 0 && ((r < 0) != (b.value < 0)))
    r += b.value;
  return floatNumber(r);
}

Number pyPow(Number a, Number b) {
  if (a.isIntegral() && b.isIntegral() && b.asInt() >= 0) {
    int64_t result = 1, base = a.asInt();
    for (int64_t e = b.asInt(); e > 0; e >>= 1, base *= base)
      if (e & 1)
        result *= base;
    return intNumber(result);
  }
  return floatNumber(std::pow(a.value, b.value));
}

// +, -, *: int unless a float is involved (bool behaves as int).
Number arithmetic(Number a, Number b, const std::function<double(double, double)> &f) {
  double r = f(a.value, b.value);
  return a.isIntegral() && b.isIntegral() ? intNumber(static_cast<int64_t>(r)) : floatNumber(r);
}

using Binary = std::function<Number(const Node &, Number, Number)>;
using Unary = std::function<Number(const Node &, Number)>;

const std::map<std::string, Binary> &binaryOps() {
  static const std::map<std::string, Binary> ops = {
      {"_operator::add", [](const Node &, Number a, Number b) { return arithmetic(a, b, std::plus<>()); }},
      {"_operator::sub", [](const Node &, Number a, Number b) { return arithmetic(a, b, std::minus<>()); }},
      {"_operator::mul", [](const Node &, Number a, Number b) { return arithmetic(a, b, std::multiplies<>()); }},
      {"_operator::truediv",
       [](const Node &node, Number a, Number b) {
         if (b.value == 0)
           throw nodeError(node, "division by zero");
         return floatNumber(a.value / b.value);
       }},
      {"_operator::floordiv", pyFloorDiv},
      {"_operator::mod", pyMod},
      {"_operator::pow", [](const Node &, Number a, Number b) { return pyPow(a, b); }},
      {"_operator::eq", [](const Node &, Number a, Number b) { return boolNumber(a.value == b.value); }},
      {"_operator::ne", [](const Node &, Number a, Number b) { return boolNumber(a.value != b.value); }},
      {"_operator::lt", [](const Node &, Number a, Number b) { return boolNumber(a.value < b.value); }},
      {"_operator::le", [](const Node &, Number a, Number b) { return boolNumber(a.value <= b.value); }},
      {"_operator::gt", [](const Node &, Number a, Number b) { return boolNumber(a.value > b.value); }},
      {"_operator::ge", [](const Node &, Number a, Number b) { return boolNumber(a.value >= b.value); }},
      {"_operator::and_",
       [](const Node &, Number a, Number b) {
         if (a.kind == Number::Kind::Bool && b.kind == Number::Kind::Bool)
           return boolNumber(a.value != 0 && b.value != 0);
         return intNumber(a.asInt() & b.asInt());
       }},
      {"_operator::or_",
       [](const Node &, Number a, Number b) {
         if (a.kind == Number::Kind::Bool && b.kind == Number::Kind::Bool)
           return boolNumber(a.value != 0 || b.value != 0);
         return intNumber(a.asInt() | b.asInt());
       }},
      {"torch::sym_max",
       [](const Node &, Number a, Number b) {
         Number r = a.value >= b.value ? a : b;
         return a.isIntegral() && b.isIntegral() ? intNumber(r.asInt()) : floatNumber(r.value);
       }},
      {"torch::sym_min",
       [](const Node &, Number a, Number b) {
         Number r = a.value <= b.value ? a : b;
         return a.isIntegral() && b.isIntegral() ? intNumber(r.asInt()) : floatNumber(r.value);
       }},
  };
  return ops;
}

const std::map<std::string, Unary> &unaryOps() {
  static const std::map<std::string, Unary> ops = {
      {"_operator::neg",
       [](const Node &, Number a) { return a.isIntegral() ? intNumber(-a.asInt()) : floatNumber(-a.value); }},
      {"_operator::pos",
       [](const Node &, Number a) { return a.isIntegral() ? intNumber(a.asInt()) : a; }},
      {"_operator::abs",
       [](const Node &, Number a) {
         return a.isIntegral() ? intNumber(std::llabs(a.asInt())) : floatNumber(std::fabs(a.value));
       }},
      {"_operator::not_", [](const Node &, Number a) { return boolNumber(a.value == 0); }},
      {"torch::sym_not", [](const Node &, Number a) { return boolNumber(a.value == 0); }},
      {"torch::sym_float", [](const Node &, Number a) { return floatNumber(a.value); }},
      {"torch::sym_int", [](const Node &, Number a) { return intNumber(static_cast<int64_t>(std::trunc(a.value))); }},
      {"torch::sym_sqrt", [](const Node &, Number a) { return floatNumber(std::sqrt(a.value)); }},
      {"math::sqrt", [](const Node &, Number a) { return floatNumber(std::sqrt(a.value)); }},
      {"math::trunc", [](const Node &, Number a) { return intNumber(static_cast<int64_t>(std::trunc(a.value))); }},
      {"math::floor", [](const Node &, Number a) { return intNumber(static_cast<int64_t>(std::floor(a.value))); }},
      {"math::ceil", [](const Node &, Number a) { return intNumber(static_cast<int64_t>(std::ceil(a.value))); }},
  };
  return ops;
}

// Tensor metadata queries: the answer is in the view description, no kernel needed.
const TensorData &tensorOperand(const Node &node, std::shared_ptr<const TensorData> &keep,
                                const EvalEnv &env) {
  if (node.numArgs() < 1 || !node.arg(0).isValue())
    throw nodeError(node, "expects a tensor as its first argument");
  keep = lookupTensor(node, node.arg(0).asValue(), env);
  return *keep;
}

int64_t dimOperand(const Node &node, int64_t rank) {
  if (node.numArgs() < 2)
    throw nodeError(node, "expects a dimension argument");
  int64_t dim = node.arg(1).asInt();
  int64_t wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= rank)
    throw nodeError(node, "dimension " + std::to_string(dim) + " is out of range for a tensor of rank " +
                              std::to_string(rank));
  return wrapped;
}

std::optional<Number> tensorQuery(const Node &node, const EvalEnv &env) {
  const std::string q = node.op().qualifiedName();
  const std::string &overload = node.op().overload;
  std::shared_ptr<const TensorData> keep;
  if (q == "aten::sym_size" && overload == "int") {
    const TensorData &t = tensorOperand(node, keep, env);
    return intNumber(t.sizes[dimOperand(node, static_cast<int64_t>(t.sizes.size()))]);
  }
  if (q == "aten::sym_stride" && overload == "int") {
    const TensorData &t = tensorOperand(node, keep, env);
    return intNumber(t.strides[dimOperand(node, static_cast<int64_t>(t.strides.size()))]);
  }
  if (q == "aten::sym_numel" && overload == "default")
    return intNumber(tensorOperand(node, keep, env).numel());
  if (q == "aten::sym_storage_offset" && overload == "default")
    return intNumber(tensorOperand(node, keep, env).storage_offset);
  return std::nullopt;
}

bool isTensorQuery(const OpKey &op) {
  const std::string q = op.qualifiedName();
  return ((q == "aten::sym_size" || q == "aten::sym_stride") && op.overload == "int") ||
         ((q == "aten::sym_numel" || q == "aten::sym_storage_offset") && op.overload == "default");
}

} // namespace

bool isScalarOp(const OpKey &op) {
  if (isTensorQuery(op))
    return true;
  if (op.overload != "default")
    return false;
  const std::string q = op.qualifiedName();
  return binaryOps().count(q) || unaryOps().count(q) || q == "torch::sym_ite";
}

std::vector<EvalValue> evaluateScalarOp(const Node &node, const EvalEnv &env) {
  if (node.numOutputs() != 1)
    throw nodeError(node, "a scalar op must have exactly one output, this node has " +
                              std::to_string(node.numOutputs()));
  const std::string q = node.op().qualifiedName();
  std::optional<Number> result = tensorQuery(node, env);
  if (!result) {
    if (auto it = binaryOps().find(q); it != binaryOps().end()) {
      result = it->second(node, operand(node, 0, env), operand(node, 1, env));
    } else if (auto un = unaryOps().find(q); un != unaryOps().end()) {
      result = un->second(node, operand(node, 0, env));
    } else if (q == "torch::sym_ite") {
      result = operand(node, 0, env).value != 0 ? operand(node, 1, env) : operand(node, 2, env);
    } else {
      throw nodeError(node, "not a scalar op");
    }
  }
  return {EvalValue{nullptr, result->value}};
}

} // namespace tico::aten_eval
