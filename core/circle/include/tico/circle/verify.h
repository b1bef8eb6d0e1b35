// Structural and referential checks of a CircleModel.
//
// The verifier never throws for a broken model and never stops at the first problem: it returns
// every finding as a diagnostic with a severity, a stable rule code, the path of the offending
// element in FlatBuffers field names and a message, printed as
//
//   ERROR [UNDEFINED_INPUT] model.subgraphs[0].operators[3].inputs[1]: tensor 7 'x' is ...
//
// Errors are what makes a model unusable (dangling indices, a tensor without a definition,
// inconsistent shapes, broken control flow); warnings are hygiene issues (unused or duplicated
// elements). The rules are listed by circleVerifierRules() and documented in
// docs/circle-tools.md. The checks work on models of any size and are linear in the model,
// so they are cheap enough to run after every edit.
#pragma once

#include "tico/circle/model.h"

#include <string>
#include <vector>

namespace tico {

enum class CircleSeverity : uint8_t { Error, Warning };

struct CircleDiagnostic {
  CircleSeverity severity = CircleSeverity::Error;
  std::string rule;    // stable code, e.g. "UNDEFINED_INPUT"
  std::string path;    // e.g. "model.subgraphs[0].tensors[7]"
  std::string message; // complete sentence fragment, no trailing period

  // "ERROR [RULE] path: message" (or "WARNING ...").
  std::string str() const;
};

struct CircleVerifyOptions {
  // Also run the hygiene rules (severity Warning).
  bool warnings = true;
  // Only the index-range rules (every operator-code, tensor, buffer and subgraph index points at
  // an existing element). The reader runs these on every file it loads; code that indexes a
  // model may rely on them.
  bool indices_only = false;
};

// All findings, errors and warnings interleaved in model order (subgraph by subgraph).
std::vector<CircleDiagnostic> verifyCircleModel(const CircleModel &model,
                                                const CircleVerifyOptions &options = {});
// Throws tico::Error listing the model's verifier errors ("; "-separated; warnings ignored: an
// unused tensor a later pass removes is not a broken model). What `--verify-each` runs after
// each Circle pass (ConversionOptions::verify_circle).
void requireValidCircleModel(const CircleModel &model);

std::size_t countDiagnostics(const std::vector<CircleDiagnostic> &diagnostics, CircleSeverity severity);

// Throws tico::Error when verification finds errors; the message starts with `what` and lists
// every error (one per line, in the str() format). Warnings are ignored.
void checkCircleModel(const CircleModel &model, const std::string &what);

struct CircleVerifierRule {
  const char *code;
  CircleSeverity severity;
  const char *summary;
};

// Every rule the verifier knows, in documentation order.
const std::vector<CircleVerifierRule> &circleVerifierRules();

} // namespace tico
