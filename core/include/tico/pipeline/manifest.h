// The YAML pipeline manifest: which passes run, in which stages and order, with which options.
// The stages run in the order written; `kind: lower` is the step from the ATen-level graph to
// the Circle model, so ATen-level stages come before it and Circle stages after it.
//
//   schema: tico.pipeline/v1
//   config:                       # CompileConfigV1 fields: aliases for pass options
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
//     - name: lower
//       kind: lower               # passes | quantize | lower | circle
//       options: {remove_constant_input: false}
//     - name: circle
//       kind: circle
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

enum class StageKind : uint8_t { Passes, Quantize, Lower, Circle };

// Passes and Quantize stages work on the ATen-level graph, before lowering.
inline bool isAtenStage(StageKind kind) { return kind == StageKind::Passes || kind == StageKind::Quantize; }

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
  // Lower stages only: the options of the lowering step (lowerStageOptions() in
  // tico/circle/serializer.h declares them).
  std::map<std::string, OptionValue> options;
  std::map<std::string, SourceLocation> option_locations;
  SourceLocation where;

  // A stage of `kind` running the compact pass list `passes` ("a, b{k=v}", the syntax of
  // tico-run --passes); `source` stands for the text in error locations. Throws LocatedError.
  static Stage fromPassList(std::string name, StageKind kind, const std::string &passes,
                            const std::string &source, PassStrategy strategy = PassStrategy::Restart);
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

  // Building manifests in code (the tools use these rather than YAML text). Each keeps the
  // stage order rules parse() enforces and throws LocatedError naming the stage otherwise.
  //
  // Appends `stage` (an ATen-level stage cannot follow lowering, nor a Circle stage precede an
  // explicit lower stage; one lower stage at most; names are unique).
  Stage &addStage(Stage stage);
  // Adds the stages of `other` around lowering: its ATen-level stages after this manifest's
  // (before lowering), its Circle stages after this manifest's. Lower options `other` sets
  // are set on this manifest's lower stage (which is created when there is none); config
  // fields `other` sets override this manifest's; verify_each is on when either has it.
  void append(const Manifest &other);
  // Sets option `key` of every entry of pass `pass` in stages of `kind` (an explicit option,
  // so config aliases do not override it). Returns how many entries were changed.
  std::size_t setPassOption(StageKind kind, const std::string &pass, const std::string &key,
                            const OptionValue &value);
  // Sets option `key` of the lower stage, creating the stage when there is none.
  void setLowerOption(const std::string &key, const OptionValue &value);

  // The explicit lower stage, or null.
  const Stage *lowerStage() const;
  // The manifest as it runs: a lower stage where none is written (right before the first
  // Circle stage, else at the end), and every config field set written into the options it
  // stands for, on each pass entry (and the lower stage) that does not set that option itself.
  // The result has no config fields left.
  Manifest resolved() const;
};

} // namespace tico
