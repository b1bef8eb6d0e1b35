#include "model_query.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>

namespace tico::circle_passes {

using AF = circle::ActivationFunctionType;

BuiltinOperator builtinOf(const CircleModel &model, const CircleOperator &op) {
  if (op.opcode_index >= model.operator_codes.size())
    return BuiltinOperator::CUSTOM; // unknown: treated as an opaque operator
  return static_cast<BuiltinOperator>(model.operator_codes[op.opcode_index].builtin_code);
}

const std::string &customCodeOf(const CircleModel &model, const CircleOperator &op) {
  static const std::string empty;
  if (op.opcode_index >= model.operator_codes.size())
    return empty;
  return model.operator_codes[op.opcode_index].custom_code;
}

int32_t versionOf(const CircleModel &model, const CircleOperator &op) {
  if (op.opcode_index >= model.operator_codes.size())
    return 1;
  return model.operator_codes[op.opcode_index].version;
}

bool hasSideEffects(const CircleModel &model, const CircleSubGraph &graph, const CircleOperator &op) {
  switch (builtinOf(model, op)) {
  case BuiltinOperator::IF:
  case BuiltinOperator::WHILE:
  case BuiltinOperator::CALL:
  case BuiltinOperator::CALL_ONCE:
  case BuiltinOperator::RUN_MODEL:
  case BuiltinOperator::CUSTOM:
  case BuiltinOperator::VAR_HANDLE:
  case BuiltinOperator::READ_VARIABLE:
  case BuiltinOperator::ASSIGN_VARIABLE:
  case BuiltinOperator::RANDOM_STANDARD_NORMAL:
  case BuiltinOperator::RANDOM_UNIFORM:
  case BuiltinOperator::MULTINOMIAL:
  case BuiltinOperator::HASHTABLE:
  case BuiltinOperator::HASHTABLE_FIND:
  case BuiltinOperator::HASHTABLE_IMPORT:
  case BuiltinOperator::HASHTABLE_SIZE:
  case BuiltinOperator::DELEGATE:
  case BuiltinOperator::STABLEHLO_RNG_BIT_GENERATOR:
  case BuiltinOperator::STABLEHLO_CUSTOM_CALL:
  case BuiltinOperator::STABLEHLO_WHILE:
  case BuiltinOperator::STABLEHLO_CASE:
  case BuiltinOperator::STABLEHLO_COMPOSITE:
    return true;
  default:
    break;
  }
  if (!referencedSubgraphs(op).empty())
    return true;
  auto touchesVariable = [&](const std::vector<int32_t> &indices) {
    return std::any_of(indices.begin(), indices.end(), [&](int32_t t) {
      return t >= 0 && static_cast<std::size_t>(t) < graph.tensors.size() && graph.tensors[t].is_variable;
    });
  };
  return touchesVariable(op.inputs) || touchesVariable(op.outputs);
}

std::vector<uint32_t> referencedSubgraphs(const CircleOperator &op) {
  std::vector<uint32_t> out;
  if (const auto *o = op.builtin_options.AsIfOptions()) {
    out.push_back(static_cast<uint32_t>(o->then_subgraph_index));
    out.push_back(static_cast<uint32_t>(o->else_subgraph_index));
  } else if (const auto *w = op.builtin_options.AsWhileOptions()) {
    out.push_back(static_cast<uint32_t>(w->cond_subgraph_index));
    out.push_back(static_cast<uint32_t>(w->body_subgraph_index));
  }
  return out;
}

namespace {

// Pointer to the fused_activation_function field of the options, or null.
AF *activationField(circle::BuiltinOptionsUnion &u) {
  using T = circle::BuiltinOptions;
  switch (u.type) {
  case T::Conv2DOptions: return &u.AsConv2DOptions()->fused_activation_function;
  case T::DepthwiseConv2DOptions: return &u.AsDepthwiseConv2DOptions()->fused_activation_function;
  case T::Conv3DOptions: return &u.AsConv3DOptions()->fused_activation_function;
  case T::TransposeConvOptions: return &u.AsTransposeConvOptions()->fused_activation_function;
  case T::Pool2DOptions: return &u.AsPool2DOptions()->fused_activation_function;
  case T::FullyConnectedOptions: return &u.AsFullyConnectedOptions()->fused_activation_function;
  case T::ConcatenationOptions: return &u.AsConcatenationOptions()->fused_activation_function;
  case T::AddOptions: return &u.AsAddOptions()->fused_activation_function;
  case T::SubOptions: return &u.AsSubOptions()->fused_activation_function;
  case T::MulOptions: return &u.AsMulOptions()->fused_activation_function;
  case T::DivOptions: return &u.AsDivOptions()->fused_activation_function;
  case T::L2NormOptions: return &u.AsL2NormOptions()->fused_activation_function;
  case T::GRUOptions: return &u.AsGRUOptions()->fused_activation_function;
  case T::BCQFullyConnectedOptions: return &u.AsBCQFullyConnectedOptions()->fused_activation_function;
  case T::InstanceNormOptions: return &u.AsInstanceNormOptions()->fused_activation_function;
  default: return nullptr;
  }
}

} // namespace

std::optional<AF> fusedActivationOf(const CircleOperator &op) {
  auto *field = activationField(const_cast<circle::BuiltinOptionsUnion &>(op.builtin_options));
  if (!field)
    return std::nullopt;
  return *field;
}

bool setFusedActivation(CircleOperator &op, AF activation) {
  AF *field = activationField(op.builtin_options);
  if (!field)
    return false;
  *field = activation;
  return true;
}

bool hasNoFusedActivation(const CircleOperator &op) {
  auto a = fusedActivationOf(op);
  return !a || *a == AF::NONE;
}

std::vector<uint8_t> optionsBytes(const circle::BuiltinOptionsUnion &options) {
  std::vector<uint8_t> out{static_cast<uint8_t>(options.type)};
  if (options.type == circle::BuiltinOptions::NONE || options.value == nullptr)
    return out;
  // Packing the object-API table gives the same bytes for equal option values: defaults are
  // not stored (ForceDefaults is off) and the builder is deterministic.
  flatbuffers::FlatBufferBuilder fbb(256);
  fbb.Finish(options.Pack(fbb));
  out.insert(out.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  return out;
}

bool sameQuantization(const CircleTensor &a, const CircleTensor &b) {
  const auto *qa = a.quantization.get();
  const auto *qb = b.quantization.get();
  auto empty = [](const circle::QuantizationParametersT *q) {
    return q == nullptr || (q->min.empty() && q->max.empty() && q->scale.empty() && q->zero_point.empty() &&
                            q->details.type == circle::QuantizationDetails::NONE);
  };
  if (empty(qa) || empty(qb))
    return empty(qa) && empty(qb);
  if (qa->details.type != circle::QuantizationDetails::NONE || qb->details.type != circle::QuantizationDetails::NONE)
    return qa == qb; // custom details: equal only when literally shared
  return qa->min == qb->min && qa->max == qb->max && qa->scale == qb->scale && qa->zero_point == qb->zero_point &&
         qa->quantized_dimension == qb->quantized_dimension;
}

bool sameContract(const CircleTensor &a, const CircleTensor &b) {
  return a.type == b.type && a.shape == b.shape && a.shape_signature == b.shape_signature &&
         a.is_variable == b.is_variable && sameQuantization(a, b);
}

bool isDynamic(const CircleTensor &t) {
  return std::any_of(t.shape_signature.begin(), t.shape_signature.end(), [](int32_t d) { return d < 0; });
}

int64_t elementCount(const std::vector<int32_t> &shape) {
  int64_t n = 1;
  for (int32_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> dims64(const CircleTensor &t) { return {t.shape.begin(), t.shape.end()}; }

bool isQuantized(const CircleTensor &t) {
  const auto *q = t.quantization.get();
  return q != nullptr && (!q->scale.empty() || !q->zero_point.empty() || q->details.type != circle::QuantizationDetails::NONE);
}

bool isPlainFloat32(const CircleTensor &t) {
  return t.type == circle::TensorType::FLOAT32 && !isQuantized(t) && !isDynamic(t) && !t.is_variable;
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

std::string opName(BuiltinOperator code) {
  const char *name = circle::EnumNameBuiltinOperator(code);
  return (name && *name) ? name : std::to_string(static_cast<int32_t>(code));
}

} // namespace tico::circle_passes
