// The ptq quantizer's configuration: defaults from its options, refined per node by overrides.
//
// An override is one string "SELECTOR:SETTING[,SETTING...]":
//   SELECTOR  a glob (* any run, ? one character) over a node's names — its name, its output
//             names, the names of the constants it reads and their parameter targets
//             ("fc1.weight") with the module path before them ("fc1") — or, when it holds
//             "::", over its op ("aten::embedding" matches aten::embedding.default; an
//             overload may be given: "aten::add.Tensor").
//   SETTING   skip                       the node stays float (no observer, float weights)
//             act=DTYPE|none             dtype of the activations it writes (and reads from
//                                        inputs of the model)
//             weight=DTYPE|none          dtype of its weight
//             granularity=per-tensor|per-channel|per-block   of its weight
//             block_size=N               per-block weight tiles
//             estimator=NAME             range estimator of its activations
//             weight_estimator=NAME      range estimator of its weight
// Every matching override applies, in the order given (the last one wins a setting). With
// `strict` an override that matches no node is an error listing it.
#pragma once

#include "qparams.h"
#include "tiling.h"

#include "tico/ir/graph.h"
#include "tico/pass/options.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tico::ptq {

// How one node is quantized.
struct NodeConfig {
  bool skip = false;
  std::string act_dtype = "uint8";      // or "none"
  std::string act_estimator = "minmax";
  std::string weight_dtype = "uint8";   // or "none"
  std::string weight_granularity = "per-channel";
  int64_t block_size = 32;
  std::string weight_estimator = "minmax";
};

struct Override {
  std::string text;      // as written, for messages
  std::string selector;
  bool op_selector = false;
  std::vector<std::pair<std::string, std::string>> settings; // key, value ("skip" has "")
};

// Parses one override; throws tico::Error quoting it on bad syntax or an unknown setting.
Override parseOverride(const std::string &text);

// fnmatch-style glob: '*' any run (also empty), '?' one character; everything else literal.
bool globMatch(const std::string &pattern, const std::string &text);

// Upper bounds of the numeric options (refused above, naming the key and the range): the mse
// estimator tries `candidates` ranges per row and batch (the original tries 100; 2^31 ran for
// hours), and a sampling estimator keeps up to max_samples floats per row (2^26: 256 MiB).
constexpr int64_t kMaxCandidates = 10000;
constexpr int64_t kMaxSamples = int64_t{1} << 26;

struct PtqConfig {
  NodeConfig defaults;
  std::string activation_scheme = "auto";
  std::string weight_scheme = "auto";
  std::vector<Override> overrides;
  bool strict = true;
  std::string float_islands = "avoid"; // or "keep"
  double percentile = 99.99;
  double momentum = 0.9;
  int64_t max_samples = 131072;
  int64_t samples_per_batch = 4096;
  int64_t candidates = 100;
  bool bias_correction = false; // bias_correction.h

  // Reads the options the plugin declares; checks dtypes, schemes, estimators and overrides.
  static PtqConfig fromOptions(const Options &options);
};

// The configuration of every node after overrides, and which overrides matched nothing.
class NodeConfigs {
public:
  NodeConfigs(const Graph &graph, const PtqConfig &config);
  const NodeConfig &of(const Node &node) const;
  // Overrides (their text) that matched no node of the graph.
  const std::vector<std::string> &unmatched() const { return unmatched_; }
  // Names a selector is matched against for `node` (for messages and tests).
  static std::vector<std::string> namesOf(const Graph &graph, const Node &node);

private:
  NodeConfig defaults_;
  std::map<const Node *, NodeConfig> configs_;
  std::vector<std::string> unmatched_;
};

// The options the plugin declares (plugin.cpp registers them).
std::vector<OptionSpec> optionSpecs();

// Applies one setting to `config`; throws tico::Error for a bad value.
void applySetting(NodeConfig &config, const std::string &key, const std::string &value, const std::string &context);

} // namespace tico::ptq
