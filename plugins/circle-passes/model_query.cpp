#include "model_query.h"

#include <algorithm>

namespace tico::circle_passes {

using AF = circle::ActivationFunctionType;

int64_t elementCount(const std::vector<int32_t> &shape) {
  int64_t n = 1;
  for (int32_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> dims64(const CircleTensor &t) { return {t.shape.begin(), t.shape.end()}; }

bool isPlainFloat32(const CircleTensor &t) {
  return t.type == circle::TensorType::FLOAT32 && !isQuantized(t) && !isDynamic(t) && !t.is_variable;
}

bool isFloat32Activation(const CircleTensor &t) {
  return t.type == circle::TensorType::FLOAT32 && !isQuantized(t) && !t.is_variable;
}

std::optional<AF> activationForOperator(BuiltinOperator code) {
  switch (code) {
  case BuiltinOperator::RELU: return AF::RELU;
  case BuiltinOperator::RELU6: return AF::RELU6;
  case BuiltinOperator::RELU_N1_TO_1: return AF::RELU_N1_TO_1;
  case BuiltinOperator::TANH: return AF::TANH;
  default: return std::nullopt;
  }
}

std::optional<AF> composeActivations(AF inner, AF outer) {
  if (inner == AF::NONE)
    return outer;
  if (outer == AF::NONE)
    return inner;
  // The clamps compose into the narrower clamp: relu(relu6(x)) = relu6(x),
  // relu6(relu(x)) = relu6(x), relu_n1_to_1 after relu is [0,1] (no code), ...
  auto clampOf = [](AF a) -> std::optional<std::pair<double, double>> {
    switch (a) {
    case AF::RELU: return std::pair{0.0, 1e300};
    case AF::RELU6: return std::pair{0.0, 6.0};
    case AF::RELU_N1_TO_1: return std::pair{-1.0, 1.0};
    default: return std::nullopt;
    }
  };
  auto ci = clampOf(inner), co = clampOf(outer);
  if (!ci || !co)
    return std::nullopt;
  double lo = std::max(ci->first, co->first), hi = std::min(ci->second, co->second);
  for (AF candidate : {AF::RELU, AF::RELU6, AF::RELU_N1_TO_1}) {
    auto c = clampOf(candidate);
    if (c->first == lo && c->second == hi)
      return candidate;
  }
  return std::nullopt;
}

bool isUnaryElementwise(BuiltinOperator code) {
  switch (code) {
  case BuiltinOperator::ABS:
  case BuiltinOperator::CAST:
  case BuiltinOperator::CEIL:
  case BuiltinOperator::COS:
  case BuiltinOperator::DEQUANTIZE:
  case BuiltinOperator::ELU:
  case BuiltinOperator::EXP:
  case BuiltinOperator::FLOOR:
  case BuiltinOperator::GELU:
  case BuiltinOperator::HARD_SWISH:
  case BuiltinOperator::LEAKY_RELU:
  case BuiltinOperator::LOG:
  case BuiltinOperator::LOGICAL_NOT:
  case BuiltinOperator::LOGISTIC:
  case BuiltinOperator::NEG:
  case BuiltinOperator::QUANTIZE:
  case BuiltinOperator::RELU:
  case BuiltinOperator::RELU6:
  case BuiltinOperator::RELU_N1_TO_1:
  case BuiltinOperator::RELU_0_TO_1:
  case BuiltinOperator::ROUND:
  case BuiltinOperator::RSQRT:
  case BuiltinOperator::SIGN:
  case BuiltinOperator::SIN:
  case BuiltinOperator::SQRT:
  case BuiltinOperator::SQUARE:
  case BuiltinOperator::TANH:
  case BuiltinOperator::ZEROS_LIKE:
    return true;
  default:
    return false;
  }
}

bool isBinaryElementwise(BuiltinOperator code) {
  switch (code) {
  case BuiltinOperator::ADD:
  case BuiltinOperator::SUB:
  case BuiltinOperator::MUL:
  case BuiltinOperator::DIV:
  case BuiltinOperator::EQUAL:
  case BuiltinOperator::NOT_EQUAL:
  case BuiltinOperator::FLOOR_DIV:
  case BuiltinOperator::FLOOR_MOD:
  case BuiltinOperator::GREATER:
  case BuiltinOperator::GREATER_EQUAL:
  case BuiltinOperator::LESS:
  case BuiltinOperator::LESS_EQUAL:
  case BuiltinOperator::LOGICAL_AND:
  case BuiltinOperator::LOGICAL_OR:
  case BuiltinOperator::MAXIMUM:
  case BuiltinOperator::MINIMUM:
  case BuiltinOperator::POW:
  case BuiltinOperator::SQUARED_DIFFERENCE:
    return true;
  default:
    return false;
  }
}

} // namespace tico::circle_passes
