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

#include <cstddef>
#include "tico/pipeline/compile_config.h"
#include "tico/support/error.h"

#include <cstdint>
#include <map>
#include <optional>
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

// The `calibration:` block: the data quantize stages calibrate on (docs/quantizers.md).
//
//   calibration:
//     path: calib/            # relative to the manifest's directory; tico-run --calibration
//                             # [SOURCE:]PATH replaces source and path
//     source: npy             # a calibration source; absent: the first that accepts the path
//     batches: 16             # at most this many batches (random: exactly)
//     seed: 0                 # sources that draw data
//     dims: {s0: 128}         # sizes of symbolic dimensions (random data)
//     memory_budget: 4GiB     # live activations held in memory; beyond it they go to disk
//     offload_dir: /var/tmp   # where they go (default: the system's temporary directory)
// The most calibration batches a run may ask for (calibration.batches, --calibration-batches):
// far above any calibration set, far below what would exhaust memory in per-batch bookkeeping.
inline constexpr std::size_t kMaxCalibrationBatches = 1000000;

struct CalibrationConfig {
  std::string source;
  std::string path;
  std::optional<std::size_t> batches;
  std::optional<uint64_t> seed;
  std::map<std::string, int64_t> dims;
  std::optional<uint64_t> memory_budget; // bytes
  std::string offload_dir;
  SourceLocation where; // the block (or the command-line flag)

  bool empty() const {
    return source.empty() && path.empty() && !batches && !seed && dims.empty() && !memory_budget &&
           offload_dir.empty();
  }
  // Fields `other` sets replace this block's.
  void merge(const CalibrationConfig &other);
  bool operator==(const CalibrationConfig &other) const {
    return source == other.source && path == other.path && batches == other.batches && seed == other.seed &&
           dims == other.dims && memory_budget == other.memory_budget && offload_dir == other.offload_dir;
  }
};

// "4GiB", "512MiB", "64KiB", "1.5GiB", "1000000" (bytes) -> bytes; also GB/MB/KB (powers of
// 1000). Throws tico::Error naming the text.
uint64_t parseByteSize(const std::string &text);
// The shortest exact spelling parseByteSize reads back ("4GiB", "1536MiB", "123").
std::string byteSizeText(uint64_t bytes);

struct Manifest {
  std::string path;
  CompileConfig config;
  CalibrationConfig calibration;
  std::vector<Stage> stages;
  bool verify_each = false;

  // Parses YAML text; structural errors (unknown keys, wrong types, bad strategy) are thrown
  // as tico::LocatedError. `file_name` is used in locations.
  static Manifest parse(const std::string &text, const std::string &file_name);
  // Reads a file; a relative calibration.path that exists beside it becomes that path.
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
  // Adds a quantization recipe (tico-run --quant, configs/quant/): its stages, which must all be
  // quantize stages, go right before this manifest's stage named "quantize" (the conversion
  // bundle that turns quantize/dequantize nodes into quantized tensors), or before lowering
  // when there is none; its calibration block is merged over this one's, its config too.
  // Throws LocatedError naming a stage of another kind or a name already taken.
  void insertQuantization(const Manifest &recipe);
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
