// The config alias table: which pass options each of the original converter's CompileConfigV1
// fields (and tico's own, after them) stands for. The pass names are those of the bundled
// std-passes and circle-passes plugins, which declare the options with the defaults listed here.
#include "tico/pipeline/compile_config.h"

#include "tico/support/error.h"

#include <algorithm>

namespace tico {

const std::vector<ConfigAlias> &configAliases() {
  static const std::vector<ConfigAlias> table = {
      {"legalize_causal_mask_value", false, {{"legalize-causal-mask-value", "enabled"}}},
      {"remove_constant_input", false, {{"", "remove_constant_input"}}},
      {"convert_lhs_const_mm_to_fc", false, {{"convert-matmul-to-linear", "lhs_const"}}},
      {"convert_rhs_const_mm_to_fc", true, {{"convert-matmul-to-linear", "rhs_const"}}},
      {"convert_single_batch_lhs_const_bmm_to_fc", false,
       {{"convert-matmul-to-linear", "single_batch_lhs_const_bmm"}}},
      {"convert_expand_to_slice_cat", false, {{"convert-expand-to-slice-cat", "enabled"}}},
      {"eliminate_rank_round_trip", false, {{"eliminate-rank-round-trip-region", "enabled"}}},
      // tico's own: the weights of float16 / bfloat16 checkpoints stay 16-bit in the file.
      {"float16_weights", true, {{"store-float16-weights", "enabled", true}}},
  };
  return table;
}

namespace {

const ConfigAlias *findAlias(const std::string &field) {
  for (const auto &alias : configAliases())
    if (alias.field == field)
      return &alias;
  return nullptr;
}

const ConfigAlias &aliasOrThrow(const std::string &field) {
  const ConfigAlias *alias = findAlias(field);
  if (alias == nullptr)
    throw Error("unknown compile config field '" + field + "'" + didYouMean(field, CompileConfig::fieldNames()));
  return *alias;
}

} // namespace

const std::vector<std::string> &CompileConfig::fieldNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto &alias : configAliases())
      out.push_back(alias.field);
    return out;
  }();
  return names;
}

bool CompileConfig::set(const std::string &field, bool value) {
  if (findAlias(field) == nullptr)
    return false;
  values_[field] = value;
  return true;
}

std::optional<bool> CompileConfig::find(const std::string &field) const {
  aliasOrThrow(field);
  auto it = values_.find(field);
  return it == values_.end() ? std::nullopt : std::optional<bool>(it->second);
}

bool CompileConfig::get(const std::string &field) const {
  return find(field).value_or(aliasOrThrow(field).default_value);
}

void CompileConfig::merge(const CompileConfig &other) {
  for (const auto &[field, value] : other.values_)
    values_[field] = value;
}

} // namespace tico
