// Ops with no Circle counterpart, rewritten from ops that have lowerings. One family per file:
//   math_rounding.cpp    trunc, div with rounding_mode='trunc', floor_divide, round with decimals
//   math_atan.cpp        atan as range reduction + minimax polynomial
//   math_elu.cpp         elu with alpha / scale / input_scale other than 1 (selu after decomposition)
//   math_vector_norm.cpp linalg_vector_norm for every ord
//   math_bfloat16.cpp    add / sub / mul / div on bfloat16 computed in float32, as PyTorch does
//   math_safe_softmax.cpp _safe_softmax: 0 for slices that are entirely -inf (SOFTMAX gives NaN)
//   norm.cpp             _native_batch_norm_legit.no_stats (instance norm after run_decompositions)
//   math_erf.cpp         erf, erfc as fitted float32 polynomials
//   math_exp_log.cpp     expm1, exp2, log2, log10 (and the special_ aliases)
//   math_hyperbolic.cpp  sinh, cosh, asinh, acosh, atanh
//   math_trig.cpp        tan, asin, acos, sinc, deg2rad, rad2deg
//   math_classify.cpp    sign, signbit, isnan/isinf/isfinite/..., nan_to_num, frac, fix,
//                        hardshrink, softshrink, logit
#include "decomposition.h"

namespace tico::decompose {

std::vector<Rule> mathRoundingRules();
std::vector<Rule> mathAtanRules();
std::vector<Rule> mathEluRules();
std::vector<Rule> mathVectorNormRules();
std::vector<Rule> mathBFloat16Rules();
std::vector<Rule> batchNormWithoutStatsRules();
std::vector<Rule> mathSafeSoftmaxRules();
std::vector<Rule> mathErfRules();
std::vector<Rule> mathExpLogRules();
std::vector<Rule> mathHyperbolicRules();
std::vector<Rule> mathTrigRules();
std::vector<Rule> mathClassifyRules();

std::vector<Rule> mathRules() {
  std::vector<Rule> rules;
  for (auto family : {mathRoundingRules, mathAtanRules, mathEluRules, mathVectorNormRules, mathBFloat16Rules,
                      batchNormWithoutStatsRules, mathSafeSoftmaxRules, mathErfRules, mathExpLogRules,
                      mathHyperbolicRules, mathTrigRules, mathClassifyRules})
    for (Rule &rule : family())
      rules.push_back(std::move(rule));
  return rules;
}

} // namespace tico::decompose
