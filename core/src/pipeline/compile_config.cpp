#include "tico/pipeline/compile_config.h"

#include "tico/support/error.h"

#include <array>
#include <utility>

namespace tico {

namespace {

// One table maps names to members so fieldNames/set/get cannot drift apart.
using Field = std::pair<const char *, bool CompileConfig::*>;

const std::array<Field, 7> &fields() {
  static const std::array<Field, 7> table = {{
      {"legalize_causal_mask_value", &CompileConfig::legalize_causal_mask_value},
      {"remove_constant_input", &CompileConfig::remove_constant_input},
      {"convert_lhs_const_mm_to_fc", &CompileConfig::convert_lhs_const_mm_to_fc},
      {"convert_rhs_const_mm_to_fc", &CompileConfig::convert_rhs_const_mm_to_fc},
      {"convert_single_batch_lhs_const_bmm_to_fc",
       &CompileConfig::convert_single_batch_lhs_const_bmm_to_fc},
      {"convert_expand_to_slice_cat", &CompileConfig::convert_expand_to_slice_cat},
      {"eliminate_rank_round_trip", &CompileConfig::eliminate_rank_round_trip},
  }};
  return table;
}

bool CompileConfig::*memberOf(const std::string &field) {
  for (const auto &[name, member] : fields())
    if (field == name)
      return member;
  return nullptr;
}

} // namespace

const std::vector<std::string> &CompileConfig::fieldNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto &field : fields())
      out.emplace_back(field.first);
    return out;
  }();
  return names;
}

bool CompileConfig::set(const std::string &field, bool value) {
  bool CompileConfig::*member = memberOf(field);
  if (member == nullptr)
    return false;
  this->*member = value;
  return true;
}

bool CompileConfig::get(const std::string &field) const {
  bool CompileConfig::*member = memberOf(field);
  if (member == nullptr)
    throw Error("unknown compile config field '" + field + "'" + didYouMean(field, fieldNames()));
  return this->*member;
}

} // namespace tico
