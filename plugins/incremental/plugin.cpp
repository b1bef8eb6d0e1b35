// Plugin `incremental`: the Circle pass `incremental-strategies` (docs/incremental.md).
#include "incremental.h"

#include "tico/circle/circle_pass.h"
#include "tico/plugin/plugin.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

namespace {

using namespace tico;

class IncrementalStrategiesPass final : public CirclePass {
public:
  explicit IncrementalStrategiesPass(incremental::CompileOptions options) : options_(std::move(options)) {}

  bool run(CircleModel &model, PassContext &context) override {
    // Once per model: a second run (an until_no_change stage) finds the manifest and stops.
    for (const auto &[name, _] : model.metadata)
      if (name == incremental::kManifestName)
        return false;
    auto report = incremental::compileIncremental(context.registry(), model, options_);
    TICO_INFO << "incremental-strategies: " << report.strategies << " strategies besides the monolith, "
              << report.callables << " callables, " << report.rejected << " candidates rejected";
    return true;
  }

private:
  incremental::CompileOptions options_;
};

void registerPlugin(Registrar &r) {
  r.addCirclePass(
      {"incremental-strategies",
       "Add incremental strategies: one subgraph + signature per input-support region, a validated manifest in "
       "Metadata('incremental.manifest.v1'); subgraph 0 stays the monolith",
       {{"groups", OptionType::StringList, std::vector<std::string>{},
         "inputs that change together, one entry per group: 'input_ids+attention_mask' (others: one group each)"},
        {"max_strategies", OptionType::Int, int64_t{8}, "strategies besides the monolith (and the refresh chain)"},
        {"retained_budget", OptionType::Int, int64_t{-1},
         "bytes the retained tensors of all strategies may take together (-1: unlimited)"},
        {"fused", OptionType::Bool, false,
         "also package each strategy as one subgraph (layout A: one dispatch; operator tables repeated)"},
        {"runtime", OptionType::String, std::string("builtin"), "the runtime that validates every strategy"},
        {"seed", OptionType::Int, int64_t{20261204}, "seed of the validation inputs"},
        {"example_inputs", OptionType::String, std::string(),
         "a .pt2 archive whose example inputs also validate every strategy (tico-run --incremental gives the input)"},
        {"state_writes", OptionType::StringList, std::vector<std::string>{},
         "buffers/inputs the exported program writes (tico-run --incremental fills it): every strategy is refused"}},
       [](const Options &o) -> std::unique_ptr<CirclePass> {
         incremental::CompileOptions options;
         options.groups = o.getStringList("groups");
         options.plan.max_strategies = o.getInt("max_strategies");
         if (options.plan.max_strategies < 0)
           throw Error("incremental-strategies: max_strategies must be >= 0");
         const int64_t budget = o.getInt("retained_budget");
         if (budget < -1)
           throw Error("incremental-strategies: retained_budget must be -1 (unlimited) or a byte count");
         if (budget >= 0)
           options.plan.budget = static_cast<uint64_t>(budget);
         options.plan.state_writes = o.getStringList("state_writes");
         options.runtime = o.getString("runtime");
         options.seed = static_cast<uint64_t>(o.getInt("seed"));
         options.example_model = o.getString("example_inputs");
         options.fused = o.getBool("fused");
         return std::make_unique<IncrementalStrategiesPass>(std::move(options));
       }});
}

} // namespace

TICO_PLUGIN("incremental", "0.1.0", "Apache-2.0", registerPlugin)
