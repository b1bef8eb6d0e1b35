// The YAML pipeline manifest: which passes run, in which stages and order, with which options,
// plus the compile configuration.
//
//   schema: tico.pipeline/v1
//   config:                       # CompileConfigV1 fields
//     convert_rhs_const_mm_to_fc: true
//   stages:
//     - name: legalize
//       strategy: restart         # restart | until_no_change | once
//       passes:
//         - remove-nop
//         - name: convert-matmul-to-linear
//           options: {lhs_const: false}
//     - name: quantized
//       when: has-quant-ops       # always (default) | has-quant-ops | has-op(<op key>)
//       passes: [fold-quant-ops]
//     - name: circle
//       kind: circle              # passes | quantize | circle
//       passes: [remove-dead-tensors]
//
// Every key is checked: unknown keys, unknown pass names and wrongly typed options are errors
// carrying file:line:column and, where one is close, a "did you mean" hint.
#pragma once

#include "tico/pass/options.h"
#include "tico/pass/pass_manager.h"
#include "tico/pipeline/compile_config.h"
#include "tico/support/error.h"

#include <map>
#include <string>
#include <vector>

namespace tico {

class Registry;
class Graph;

enum class StageKind : uint8_t { Passes, Quantize, Circle };

struct PassInvocation {
  std::string name;
  std::map<std::string, OptionValue> options;
  std::map<std::string, SourceLocation> option_locations;
  SourceLocation where;
};

struct StageCondition {
  enum class Kind : uint8_t { Always, HasQuantOps, HasOp } kind = Kind::Always;
  std::string op; // HasOp: canonical op key text
  bool holds(const Graph &graph) const;
  std::string str() const;
};

struct Stage {
  std::string name;
  StageKind kind = StageKind::Passes;
  PassStrategy strategy = PassStrategy::Restart;
  StageCondition when;
  std::vector<PassInvocation> passes;
  SourceLocation where;
};

struct Manifest {
  std::string path;
  CompileConfig config;
  std::vector<Stage> stages;
  bool verify_each = false;

  // Parses YAML text; structural errors (unknown keys, wrong types, bad strategy) are thrown
  // as tico::LocatedError. `file_name` is used in locations.
  static Manifest parse(const std::string &text, const std::string &file_name);
  static Manifest load(const std::string &path);

  // Checks pass names and option types against what plugins registered. Reports every
  // problem at once (one LocatedError whose message lists them all).
  void validate(const Registry &registry) const;

  // Canonical YAML; parse(print()) yields an equal manifest.
  std::string print() const;
};

} // namespace tico
