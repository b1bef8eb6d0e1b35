// The options of the ptq quantizer (declared here so tests resolve them like the host does).
#include "config.h"
#include "range_estimator.h"

namespace tico::ptq {

std::vector<OptionSpec> optionSpecs() {
  std::string estimator_list;
  for (const auto &[name, entry] : estimators())
    estimator_list += (estimator_list.empty() ? "" : "; ") + name + ": " + entry.summary;
  return {
      {"activations", OptionType::String, std::string("uint8"),
       "activation dtype: uint8 (asymmetric), int16 (symmetric), int8, or none (weight-only)"},
      {"weights", OptionType::String, std::string("uint8"),
       "weight dtype: uint8 (asymmetric), int8 (symmetric), uint4 (asymmetric), int4 (symmetric), int16, or none"},
      {"activation_scheme", OptionType::String, std::string("auto"),
       "auto (signed: symmetric, unsigned: asymmetric), symmetric, asymmetric; unsigned + symmetric is an error"},
      {"weight_scheme", OptionType::String, std::string("auto"), "as activation_scheme, for weights"},
      {"granularity", OptionType::String, std::string("per-channel"),
       "weight granularity: per-channel (output channels), per-tensor, per-block (2-D weights: blocks of block_size input columns per output row; the op stays float)"},
      {"block_size", OptionType::Int, int64_t{32}, "tile length of per-block weights"},
      {"estimator", OptionType::String, std::string("minmax"), "activation range estimator: " + estimator_list},
      {"weight_estimator", OptionType::String, std::string("minmax"), "weight range estimator (same names)"},
      {"percentile", OptionType::Float, 99.99, "percentile estimator: central mass kept, in (0, 100]"},
      {"momentum", OptionType::Float, 0.9, "ema estimator: weight of the running value, in (0, 1)"},
      {"max_samples", OptionType::Int, int64_t{131072}, "percentile / mse: values sampled per tensor at most"},
      {"samples_per_batch", OptionType::Int, int64_t{4096}, "percentile / mse: values sampled per batch at most"},
      {"candidates", OptionType::Int, int64_t{100}, "mse: ranges tried per tile"},
      {"overrides", OptionType::StringList, std::vector<std::string>{},
       "per-node settings 'SELECTOR:SETTING,...': SELECTOR a glob over node / value / parameter names or, with "
       "'::', over the op ('aten::embedding'); SETTING skip, act=DTYPE|none, weight=DTYPE|none, granularity=..., "
       "block_size=N, estimator=NAME, weight_estimator=NAME; later entries win"},
      {"strict", OptionType::Bool, true, "an override that matches no node is an error"},
      {"float_islands", OptionType::String, std::string("avoid"),
       "avoid: activations next to ops without an integer kernel stay float (strict check-missing-qparams "
       "passes); keep: quantize them anyway (needs check-missing-qparams{strict=false})"},
      {"bias_correction", OptionType::Bool, false,
       "empirical bias correction: each linear / conv layer's bias absorbs the mean output change its weight "
       "quantization causes, (W_q - W) E[x] over the calibration batches"},
  };
}

} // namespace tico::ptq
