// Operator queries of tico/circle/query.h: identity (code, name), side effects, fused
// activations, canonical option bytes.

#include "tico/circle/query.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>

namespace tico {

using AF = circle::ActivationFunctionType;

circle::BuiltinOperator builtinOf(const CircleModel &model, const CircleOperator &op) {
  if (op.opcode_index >= model.operator_codes.size())
    return circle::BuiltinOperator::CUSTOM; // unknown: treated as an opaque operator
  return static_cast<circle::BuiltinOperator>(model.operator_codes[op.opcode_index].builtin_code);
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

std::string operatorCodeName(const CircleModel &model, uint32_t opcode_index) {
  if (opcode_index >= model.operator_codes.size())
    return "operator code #" + std::to_string(opcode_index);
  const CircleOperatorCode &code = model.operator_codes[opcode_index];
  const auto builtin = static_cast<circle::BuiltinOperator>(code.builtin_code);
  if (builtin == circle::BuiltinOperator::CUSTOM)
    return "CUSTOM(" + code.custom_code + ")";
  const char *name = circle::EnumNameBuiltinOperator(builtin);
  if (name && *name)
    return name;
  return "operator code " + std::to_string(code.builtin_code);
}

std::string operatorName(const CircleModel &model, const CircleOperator &op) {
  return operatorCodeName(model, op.opcode_index);
}

bool hasSideEffects(const CircleModel &model, const CircleSubGraph &subgraph, const CircleOperator &op) {
  switch (builtinOf(model, op)) {
  case circle::BuiltinOperator::IF:
  case circle::BuiltinOperator::WHILE:
  case circle::BuiltinOperator::CALL:
  case circle::BuiltinOperator::CALL_ONCE:
  case circle::BuiltinOperator::RUN_MODEL:
  case circle::BuiltinOperator::CUSTOM:
  case circle::BuiltinOperator::VAR_HANDLE:
  case circle::BuiltinOperator::READ_VARIABLE:
  case circle::BuiltinOperator::ASSIGN_VARIABLE:
  case circle::BuiltinOperator::RANDOM_STANDARD_NORMAL:
  case circle::BuiltinOperator::RANDOM_UNIFORM:
  case circle::BuiltinOperator::MULTINOMIAL:
  case circle::BuiltinOperator::HASHTABLE:
  case circle::BuiltinOperator::HASHTABLE_FIND:
  case circle::BuiltinOperator::HASHTABLE_IMPORT:
  case circle::BuiltinOperator::HASHTABLE_SIZE:
  case circle::BuiltinOperator::DELEGATE:
  case circle::BuiltinOperator::STABLEHLO_RNG_BIT_GENERATOR:
  case circle::BuiltinOperator::STABLEHLO_CUSTOM_CALL:
  case circle::BuiltinOperator::STABLEHLO_WHILE:
  case circle::BuiltinOperator::STABLEHLO_CASE:
  case circle::BuiltinOperator::STABLEHLO_COMPOSITE:
    return true;
  default:
    break;
  }
  // Options that call a subgraph make the operator control flow whatever its code says.
  if (!calledSubgraphs(op).empty())
    return true;
  auto touchesVariable = [&](const std::vector<int32_t> &indices) {
    return std::any_of(indices.begin(), indices.end(), [&](int32_t t) {
      return t >= 0 && static_cast<std::size_t>(t) < subgraph.tensors.size() && subgraph.tensors[t].is_variable;
    });
  };
  return touchesVariable(op.inputs) || touchesVariable(op.outputs);
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

} // namespace tico
