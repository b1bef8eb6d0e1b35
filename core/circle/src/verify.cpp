// Entry points of the verifier, diagnostic formatting and the rule catalogue.

#include "verify_detail.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"

namespace tico {

std::string CircleDiagnostic::str() const {
  return std::string(severity == CircleSeverity::Error ? "ERROR" : "WARNING") + " [" + rule + "] " + path + ": " +
         message;
}

const std::vector<CircleVerifierRule> &circleVerifierRules() {
  using S = CircleSeverity;
  static const std::vector<CircleVerifierRule> rules = {
      {"NO_SUBGRAPHS", S::Error, "the model has at least one subgraph"},
      {"MISSING_EMPTY_BUFFER", S::Error, "buffer 0, the empty sentinel, exists"},
      {"BUFFER0_NOT_EMPTY", S::Error, "buffer 0 holds no data"},
      {"BAD_PAYLOAD", S::Error, "every buffer payload lies inside its storage"},
      {"MISSING_OPERATOR_CODES", S::Error, "a model with operators has operator codes"},
      {"OPCODE_INDEX", S::Error, "every operator's opcode_index names an operator code"},
      {"TENSOR_INDEX", S::Error,
       "every tensor index (operator inputs/outputs, subgraph inputs/outputs, signature maps, "
       "block-wise quantization) names a tensor of its subgraph; only operator inputs may be -1"},
      {"BUFFER_INDEX", S::Error, "every tensor's and metadata entry's buffer index names a buffer"},
      {"SUBGRAPH_INDEX", S::Error, "control-flow options and signatures name existing subgraphs"},
      {"BAD_OPTIONS", S::Error, "an operator's options have a known type and a table"},
      {"NEGATIVE_DIMENSION", S::Error, "shape entries are >= 0 (dynamic dimensions use shape_signature)"},
      {"SHAPE_SIGNATURE_RANK", S::Error, "shape_signature, when present, has the rank of shape"},
      {"SHAPE_SIGNATURE_MISMATCH", S::Error,
       "shape_signature is -1 only where shape is 1 and equals shape elsewhere"},
      {"TENSOR_TOO_LARGE", S::Error,
       "a tensor's element count times its element size fits in 64 bits (a reader's size arithmetic would wrap)"},
      {"BUFFER_SIZE_MISMATCH", S::Error,
       "a constant's payload size is its element count times its element size (INT4/UINT4: two elements per "
       "byte, rounded up)"},
      {"QUANT_SCALE", S::Error, "quantization scales are positive finite numbers"},
      {"QUANT_ZERO_POINT_RANGE", S::Error, "zero points lie inside the range of the tensor's integer type"},
      {"QUANT_LENGTH_MISMATCH", S::Error,
       "zero_point is as long as scale; min and max are both empty or both as long as scale"},
      {"QUANT_DIMENSION", S::Error, "quantized_dimension of a per-channel record is inside the tensor's rank"},
      {"QUANT_MX_RECORD", S::Error,
       "an MXINT8 / MXFP4 tensor has a quantization record with quantized_dimension (the axis of its shared "
       "exponents) inside its rank, and no scales or zero points"},
      {"QUANT_CHANNEL_COUNT", S::Error,
       "a per-channel record has one scale per index of the quantized dimension"},
      {"MULTIPLE_PRODUCERS", S::Error, "each tensor is written by at most one operator"},
      {"CONSTANT_OVERWRITTEN", S::Error, "no operator writes a tensor that has constant data"},
      {"UNDEFINED_INPUT", S::Error,
       "every operator input is produced, a subgraph input, a constant or a variable"},
      {"USE_BEFORE_DEFINITION", S::Error, "an operator input is produced by an earlier operator"},
      {"UNDEFINED_OUTPUT", S::Error, "every subgraph output is produced, an input, a constant or a variable"},
      {"CONTROL_FLOW_OPTIONS", S::Error, "IF, WHILE, CALL and CALL_ONCE operators carry their options"},
      {"CONTROL_FLOW_ARITY", S::Error,
       "called subgraphs take and return as many tensors as the control-flow operator passes"},
      {"CONTROL_FLOW_CYCLE", S::Error, "no subgraph calls itself, directly or through others"},
      {"DUPLICATE_IO", S::Warning, "a tensor appears at most once among a subgraph's inputs and at most once among its outputs"},
      {"INPUT_HAS_PRODUCER", S::Warning, "no operator writes a subgraph input"},
      {"DUPLICATE_TENSOR_NAME", S::Warning, "tensor names are unique within a subgraph"},
      {"DUPLICATE_SIGNATURE_KEY", S::Warning, "signature keys are unique"},
      {"SIGNATURE_NOT_IO", S::Warning, "signature inputs/outputs are subgraph inputs/outputs"},
      {"QUANT_ON_FLOAT", S::Warning, "float tensors carry no quantization scales (runtimes ignore them)"},
      {"STATIC_SHAPE_SIGNATURE", S::Warning, "shape_signature is present only with a dynamic (-1) dimension"},
      {"UNUSED_TENSOR", S::Warning, "every tensor is referenced"},
      {"UNUSED_BUFFER", S::Warning, "every buffer but 0 is referenced by a tensor or metadata"},
      {"UNUSED_OPERATOR_CODE", S::Warning, "every operator code is used by an operator"},
  };
  return rules;
}

std::vector<CircleDiagnostic> verifyCircleModel(const CircleModel &model, const CircleVerifyOptions &options) {
  circle_verify::Findings findings(model, options);
  if (options.indices_only) {
    circle_verify::checkIndices(findings);
    return std::move(findings.out);
  }
  circle_verify::checkModelStructure(findings);
  circle_verify::checkIndices(findings);
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    circle_verify::checkTensors(findings, s);
    circle_verify::checkQuantization(findings, s);
    circle_verify::checkDataflow(findings, s);
  }
  circle_verify::checkControlFlow(findings);
  circle_verify::checkSignatures(findings);
  circle_verify::checkUsage(findings);
  return std::move(findings.out);
}

std::size_t countDiagnostics(const std::vector<CircleDiagnostic> &diagnostics, CircleSeverity severity) {
  std::size_t n = 0;
  for (const auto &d : diagnostics)
    n += d.severity == severity;
  return n;
}

void checkCircleModel(const CircleModel &model, const std::string &what) {
  CircleVerifyOptions options;
  options.warnings = false;
  const auto diagnostics = verifyCircleModel(model, options);
  if (diagnostics.empty())
    return;
  std::string message = what + ": the model fails verification with " + std::to_string(diagnostics.size()) +
                        (diagnostics.size() == 1 ? " error" : " errors");
  for (const auto &d : diagnostics)
    message += "\n  " + d.str();
  throw Error(message);
}

namespace circle_verify {

std::string tensorLabel(const CircleSubGraph &subgraph, int64_t index) {
  std::string label = "tensor " + std::to_string(index);
  if (index >= 0 && static_cast<uint64_t>(index) < subgraph.tensors.size() && !subgraph.tensors[index].name.empty())
    label += " '" + clipped(subgraph.tensors[index].name) + "'";
  return label;
}

int32_t builtinCodeOf(const CircleModel &model, const CircleOperator &op) {
  if (op.opcode_index >= model.operator_codes.size())
    return INT32_MIN;
  return model.operator_codes[op.opcode_index].builtin_code;
}

} // namespace circle_verify

void requireValidCircleModel(const CircleModel &model) {
  std::string errors;
  for (const auto &d : verifyCircleModel(model, CircleVerifyOptions{/*warnings=*/false}))
    if (d.severity == CircleSeverity::Error)
      errors += (errors.empty() ? "" : "; ") + d.str();
  if (!errors.empty())
    throw Error(errors);
}

} // namespace tico
