// Options and overrides of the ptq quantizer (config.h).
#include "config.h"
#include "range_estimator.h"

#include "tico/quant/graph_edits.h"
#include "tico/support/error.h"


namespace tico::ptq {
namespace {

std::string trim(const std::string &s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos)
    return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

void checkDType(const std::string &dtype, const std::string &scheme, const std::string &context) {
  if (dtype != "none")
    (void)parseGrid(dtype, scheme, context);
}

bool matches(const Override &o, const quant::SelectorNames &names, const Node &node) {
  if (o.op_selector) {
    const OpKey &op = node.op();
    return globMatch(o.selector, op.str()) || globMatch(o.selector, op.ns + "::" + op.name);
  }
  for (const std::string &n : names.of(node))
    if (globMatch(o.selector, n))
      return true;
  return false;
}

} // namespace

bool globMatch(const std::string &pattern, const std::string &text) {
  // Iterative matcher with one backtrack point (the last '*').
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

void applySetting(NodeConfig &config, const std::string &key, const std::string &value, const std::string &context) {
  const auto need = [&]() {
    if (value.empty())
      throw Error(context + ": setting '" + key + "' needs a value (" + key + "=...)");
  };
  if (key == "skip") {
    if (!value.empty())
      throw Error(context + ": 'skip' takes no value");
    config.skip = true;
  } else if (key == "act") {
    need();
    config.act_dtype = value;
  } else if (key == "weight") {
    need();
    config.weight_dtype = value;
  } else if (key == "granularity") {
    need();
    if (value != "per-tensor" && value != "per-channel" && value != "per-block")
      throw Error(context + ": unknown granularity '" + value + "' (per-tensor, per-channel, per-block)");
    config.weight_granularity = value;
  } else if (key == "block_size") {
    need();
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(value, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used != value.size() || n <= 0)
      throw Error(context + ": block_size '" + value + "' is not a positive integer");
    config.block_size = n;
  } else if (key == "estimator") {
    need();
    (void)findEstimator(value);
    config.act_estimator = value;
  } else if (key == "weight_estimator") {
    need();
    (void)findEstimator(value);
    config.weight_estimator = value;
  } else {
    throw Error(context + ": unknown setting '" + key +
                "' (skip, act, weight, granularity, block_size, estimator, weight_estimator)");
  }
}

Override parseOverride(const std::string &text) {
  const std::string context = "ptq override '" + text + "'";
  // The selector ends at the last ':' that is not half of a "::".
  std::size_t split = std::string::npos;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == ':') {
      const bool pair = (i + 1 < text.size() && text[i + 1] == ':') || (i > 0 && text[i - 1] == ':');
      if (!pair)
        split = i;
    }
  if (split == std::string::npos)
    throw Error(context + ": expected SELECTOR:SETTING[,SETTING...] (e.g. '*lm_head*:weight=uint8')");
  Override o;
  o.text = text;
  o.selector = trim(text.substr(0, split));
  o.op_selector = o.selector.find("::") != std::string::npos;
  if (o.selector.empty())
    throw Error(context + ": the selector is empty");
  std::string rest = text.substr(split + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t comma = rest.find(',', start);
    if (comma == std::string::npos)
      comma = rest.size();
    const std::string item = trim(rest.substr(start, comma - start));
    if (item.empty())
      throw Error(context + ": empty setting");
    const auto eq = item.find('=');
    std::string key = trim(item.substr(0, eq));
    std::string value = eq == std::string::npos ? "" : trim(item.substr(eq + 1));
    NodeConfig probe;
    applySetting(probe, key, value, context); // checks key and value now, not per node
    o.settings.emplace_back(std::move(key), std::move(value));
    start = comma + 1;
  }
  return o;
}

namespace {

// The numeric options' allowed ranges: past them a run takes hours (candidates) or memory
// it cannot get (max_samples), so they are refused with the key and the range.
int64_t boundedInt(const Options &options, const std::string &key, int64_t lo, int64_t hi) {
  const int64_t value = options.getInt(key);
  if (value < lo || value > hi)
    throw Error("quantizer 'ptq': option '" + key + "' is " + std::to_string(value) + "; allowed " +
                std::to_string(lo) + " to " + std::to_string(hi));
  return value;
}

} // namespace

PtqConfig PtqConfig::fromOptions(const Options &options) {
  PtqConfig c;
  c.defaults.act_dtype = options.getString("activations");
  c.defaults.weight_dtype = options.getString("weights");
  c.defaults.act_estimator = options.getString("estimator");
  c.defaults.weight_estimator = options.getString("weight_estimator");
  c.defaults.weight_granularity = options.getString("granularity");
  c.defaults.block_size = options.getInt("block_size");
  c.activation_scheme = options.getString("activation_scheme");
  c.weight_scheme = options.getString("weight_scheme");
  c.strict = options.getBool("strict");
  c.float_islands = options.getString("float_islands");
  c.bias_correction = options.getBool("bias_correction");
  c.percentile = options.getFloat("percentile");
  c.momentum = options.getFloat("momentum");
  c.max_samples = boundedInt(options, "max_samples", 1, kMaxSamples);
  c.samples_per_batch = boundedInt(options, "samples_per_batch", 1, kMaxSamples);
  c.candidates = boundedInt(options, "candidates", 1, kMaxCandidates);
  const std::string context = "quantizer 'ptq'";
  NodeConfig checked;
  applySetting(checked, "estimator", c.defaults.act_estimator, context);
  applySetting(checked, "weight_estimator", c.defaults.weight_estimator, context);
  applySetting(checked, "granularity", c.defaults.weight_granularity, context);
  applySetting(checked, "block_size", std::to_string(c.defaults.block_size), context);
  checkDType(c.defaults.act_dtype, c.activation_scheme, context + " option activations");
  checkDType(c.defaults.weight_dtype, c.weight_scheme, context + " option weights");
  if (c.float_islands != "avoid" && c.float_islands != "keep")
    throw Error(context + ": float_islands is '" + c.float_islands + "' (avoid, keep)");
  for (const std::string &text : options.getStringList("overrides")) {
    Override o = parseOverride(text);
    NodeConfig probe = c.defaults;
    for (const auto &[k, v] : o.settings)
      applySetting(probe, k, v, "ptq override '" + text + "'");
    checkDType(probe.act_dtype, c.activation_scheme, "ptq override '" + text + "'");
    checkDType(probe.weight_dtype, c.weight_scheme, "ptq override '" + text + "'");
    c.overrides.push_back(std::move(o));
  }
  return c;
}

NodeConfigs::NodeConfigs(const Graph &graph, const PtqConfig &config) : defaults_(config.defaults) {
  const quant::SelectorNames names(graph);
  std::vector<bool> used(config.overrides.size(), false);
  for (const auto &owned : graph.nodes()) {
    const Node &node = *owned;
    NodeConfig c = config.defaults;
    bool any = false;
    for (std::size_t i = 0; i < config.overrides.size(); ++i) {
      const Override &o = config.overrides[i];
      if (!matches(o, names, node))
        continue;
      used[i] = true;
      any = true;
      for (const auto &[k, v] : o.settings)
        applySetting(c, k, v, "ptq override '" + o.text + "'");
    }
    if (any)
      configs_.emplace(&node, std::move(c));
  }
  for (std::size_t i = 0; i < used.size(); ++i)
    if (!used[i])
      unmatched_.push_back(config.overrides[i].text);
}

const NodeConfig &NodeConfigs::of(const Node &node) const {
  auto it = configs_.find(&node);
  return it == configs_.end() ? defaults_ : it->second;
}

std::vector<std::string> NodeConfigs::namesOf(const Graph &graph, const Node &node) {
  return quant::SelectorNames(graph).of(node);
}

} // namespace tico::ptq
