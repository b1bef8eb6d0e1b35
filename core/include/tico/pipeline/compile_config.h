// Compile configuration: the original converter's CompileConfigV1 fields, every one of them
// consumed by a pass (eliminate_rank_round_trip included, which the original ignored).
#pragma once

#include <string>
#include <vector>

namespace tico {

struct CompileConfig {
  // −inf / very negative causal-mask constants become −120 (quantization friendly).
  bool legalize_causal_mask_value = false;
  // Drop user inputs that torch.export specialised to constants from the Circle inputs.
  bool remove_constant_input = false;
  bool convert_lhs_const_mm_to_fc = false;
  bool convert_rhs_const_mm_to_fc = true;
  bool convert_single_batch_lhs_const_bmm_to_fc = false;
  bool convert_expand_to_slice_cat = false;
  bool eliminate_rank_round_trip = false;

  // Names of the fields above, for manifest validation and "did you mean" hints.
  static const std::vector<std::string> &fieldNames();
  // Sets a field by name; returns false when the name is unknown.
  bool set(const std::string &field, bool value);
  bool get(const std::string &field) const; // throws tico::Error for an unknown name
};

} // namespace tico
