// The layout family: raw (not run_decompositions'd) view, reorder and batched-product ops
// rewritten into ops that have Circle lowerings. The rules live in layout_*.cpp by group.
#include "layout_rules.h"

namespace tico::decompose {

std::optional<std::vector<int64_t>> staticInts(const Argument &arg) {
  if (arg.isIntList())
    return arg.asInts();
  if (arg.isInt())
    return std::vector<int64_t>{arg.asInt()};
  if (arg.kind() == Argument::Kind::SymIntList) {
    std::vector<int64_t> out;
    for (const SymIntElem &e : arg.asSymInts()) {
      if (e.sym != nullptr)
        return std::nullopt;
      out.push_back(e.value);
    }
    return out;
  }
  return std::nullopt;
}

std::vector<Rule> layoutRules() {
  std::vector<Rule> rules;
  for (auto family : {layoutMatmulRules, layoutReorderRules, layoutSliceRules, layoutEinsumRules, layoutGatherRules, layoutUpsampleRules,
                      layoutNearestRules, layoutBicubicRules, layoutViewRules})
    for (Rule &rule : family())
      rules.push_back(std::move(rule));
  return rules;
}

} // namespace tico::decompose
