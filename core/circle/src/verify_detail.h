// Shared state of the verifier's rule groups (verify*.cpp).
#pragma once

#include "tico/circle/verify.h"

#include <string>
#include <vector>

namespace tico::circle_verify {

class Findings {
public:
  Findings(const CircleModel &model, const CircleVerifyOptions &options) : model(model), options(options) {}

  void error(const char *rule, std::string path, std::string message) {
    out.push_back({CircleSeverity::Error, rule, std::move(path), std::move(message)});
  }
  void warning(const char *rule, std::string path, std::string message) {
    if (options.warnings)
      out.push_back({CircleSeverity::Warning, rule, std::move(path), std::move(message)});
  }

  const CircleModel &model;
  const CircleVerifyOptions &options;
  std::vector<CircleDiagnostic> out;
};

inline std::string subgraphPath(std::size_t s) { return "model.subgraphs[" + std::to_string(s) + "]"; }
inline std::string operatorPath(std::size_t s, std::size_t o) {
  return subgraphPath(s) + ".operators[" + std::to_string(o) + "]";
}
inline std::string tensorPath(std::size_t s, std::size_t t) {
  return subgraphPath(s) + ".tensors[" + std::to_string(t) + "]";
}
inline std::string item(const std::string &list, std::size_t i) { return list + "[" + std::to_string(i) + "]"; }

// "tensor 7 'x'" (the name only when the index is valid and the tensor has one).
std::string tensorLabel(const CircleSubGraph &subgraph, int64_t index);
// The operator's builtin code, or nullopt-like INT32_MIN when its opcode index is invalid.
int32_t builtinCodeOf(const CircleModel &model, const CircleOperator &op);

// Rule groups, each appending to `findings`.
void checkModelStructure(Findings &findings);
void checkIndices(Findings &findings);
void checkTensors(Findings &findings, std::size_t subgraph);
void checkQuantization(Findings &findings, std::size_t subgraph);
void checkDataflow(Findings &findings, std::size_t subgraph);
void checkControlFlow(Findings &findings);
void checkSignatures(Findings &findings);
void checkUsage(Findings &findings);

} // namespace tico::circle_verify
