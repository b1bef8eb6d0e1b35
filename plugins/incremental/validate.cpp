// Validation before emission: every strategy, run as its ordered callables on a runtime through
// the runtime ABI, must give subgraph 0's public outputs bit for bit. A stale-cache scenario is
// what is checked: the retained values come from one input set (seed), the strategy then runs
// on a second set (seed + 1) that differs from the first exactly in the groups the strategy
// serves, and its outputs are compared with the monolith on that mixed set.
//
// When the pass is given the .pt2 archive (tico-run --incremental does), its example inputs are
// used too, read by the calibration source `example-inputs`: once as the set the strategy runs
// on and once as the set the cache was filled from, the other set seeded. The seeded data
// respects the input contracts: float inputs uniform in
// [-1, 1); integer inputs that index a GATHER (directly or through CAST / RESHAPE / SQUEEZE /
// EXPAND_DIMS) in [0, rows of the gathered table), other integer inputs in {0, 1} (masks),
// booleans in {0, 1}. Dynamic dimensions take their recorded size.
#include "incremental.h"

#include "tico/circle/query.h"
#include "tico/plugin/registry.h"
#include "tico/quant/calibration.h"
#include "tico/runtime/runtime.h"
#include "tico/support/error.h"

#include <algorithm>
#include <map>
#include <random>

namespace tico::incremental {
namespace {

using Value = std::shared_ptr<const TensorData>;

// Exclusive upper bound for the integer values of subgraph-0 tensor `t`.
int64_t integerBound(const CircleModel &model, int32_t t) {
  const CircleSubGraph &g = model.subgraphs[0];
  int64_t bound = -1;
  std::vector<int32_t> work{t};
  std::vector<uint8_t> seen(g.tensors.size(), 0);
  while (!work.empty()) {
    const int32_t v = work.back();
    work.pop_back();
    if (seen[v])
      continue;
    seen[v] = 1;
    for (const CircleOperator &op : g.operators) {
      for (std::size_t slot = 0; slot < op.inputs.size(); ++slot) {
        if (op.inputs[slot] != v)
          continue;
        const auto code = builtinOf(model, op);
        if (code == circle::BuiltinOperator::GATHER && slot == 1) {
          int axis = 0;
          if (const auto *o = op.builtin_options.AsGatherOptions())
            axis = o->axis;
          const CircleTensor &params = g.tensors[op.inputs[0]];
          if (axis < 0)
            axis += static_cast<int>(params.shape.size());
          if (axis >= 0 && axis < static_cast<int>(params.shape.size()) && params.shape[axis] > 0)
            bound = bound < 0 ? params.shape[axis] : std::min<int64_t>(bound, params.shape[axis]);
        } else if (slot == 0 && (code == circle::BuiltinOperator::CAST || code == circle::BuiltinOperator::RESHAPE ||
                                 code == circle::BuiltinOperator::SQUEEZE ||
                                 code == circle::BuiltinOperator::EXPAND_DIMS)) {
          work.push_back(op.outputs[0]);
        }
      }
    }
  }
  return bound > 0 ? bound : 2;
}

std::vector<Value> seededInputs(const CircleModel &model, uint64_t seed) {
  const CircleSubGraph &g = model.subgraphs[0];
  std::mt19937_64 rng(seed);
  std::vector<Value> out;
  for (int32_t t : g.inputs) {
    const CircleTensor &tensor = g.tensors[t];
    std::vector<int64_t> shape;
    int64_t n = 1;
    for (int32_t d : tensor.shape) {
      shape.push_back(d > 0 ? d : 1);
      n *= shape.back();
    }
    const DType dtype = fromCircleType(tensor.type);
    switch (dtype) {
    case DType::Float32: {
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float> v(n);
      for (auto &x : v)
        x = dist(rng);
      out.push_back(std::make_shared<TensorData>(TensorData::fromVector(dtype, shape, v)));
      break;
    }
    case DType::Int32:
    case DType::Int64: {
      std::uniform_int_distribution<int64_t> dist(0, integerBound(model, t) - 1);
      if (dtype == DType::Int32) {
        std::vector<int32_t> v(n);
        for (auto &x : v)
          x = static_cast<int32_t>(dist(rng));
        out.push_back(std::make_shared<TensorData>(TensorData::fromVector(dtype, shape, v)));
      } else {
        std::vector<int64_t> v(n);
        for (auto &x : v)
          x = dist(rng);
        out.push_back(std::make_shared<TensorData>(TensorData::fromVector(dtype, shape, v)));
      }
      break;
    }
    case DType::Bool:
    case DType::UInt8: {
      std::uniform_int_distribution<int> dist(0, 1);
      std::vector<uint8_t> v(n);
      for (auto &x : v)
        x = static_cast<uint8_t>(dist(rng));
      out.push_back(std::make_shared<TensorData>(TensorData::fromVector(dtype, shape, v)));
      break;
    }
    default:
      throw Error(std::string("incremental: cannot make validation data for input '") + tensor.name + "' of type " +
                  circle::EnumNameTensorType(tensor.type));
    }
  }
  return out;
}

// The archive's example inputs as subgraph-0 inputs, or the reason they cannot be used.
std::vector<Value> exampleInputs(const Registry &registry, const CircleModel &model, const std::string &archive,
                                 std::string &why) {
  const auto *source = registry.findCalibrationSource("example-inputs");
  if (!source) {
    why = "the calibration source 'example-inputs' (plugin calibration-sources) is not loaded";
    return {};
  }
  const CircleSubGraph &g = model.subgraphs[0];
  CalibrationRequest request;
  request.location = "example-inputs";
  request.model_path = archive;
  for (int32_t t : g.inputs) {
    const CircleTensor &tensor = g.tensors[t];
    CalibrationInput in;
    in.name = tensor.name;
    in.dtype = fromCircleType(tensor.type);
    for (std::size_t d = 0; d < tensor.shape.size(); ++d)
      in.shape.push_back(!tensor.shape_signature.empty() && tensor.shape_signature[d] < 0 ? -1 : tensor.shape[d]);
    request.inputs.push_back(std::move(in));
  }
  try {
    auto batches = source->spec.create(request);
    if (batches->size() < 1) {
      why = "the archive holds no example inputs";
      return {};
    }
    auto batch = batches->batch(0);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const CircleTensor &tensor = g.tensors[g.inputs[i]];
      // Dynamic dimensions (-1 in the request) take any size; the others must match.
      const auto &want = request.inputs[i].shape;
      bool fits = batch[i]->dtype == fromCircleType(tensor.type) && batch[i]->sizes.size() == want.size();
      for (std::size_t d = 0; fits && d < want.size(); ++d)
        fits = want[d] < 0 || want[d] == batch[i]->sizes[d];
      if (!fits) {
        why = "example input " + std::to_string(i) + " does not have the type and shape of input '" + tensor.name + "'";
        return {};
      }
    }
    return batch;
  } catch (const std::exception &e) {
    why = e.what();
    return {};
  }
}

} // namespace

ValidationResult validateStrategies(const Registry &registry, const std::string &runtime_name,
                                    const CircleModel &model, const InputGroups &groups, const Package &package,
                                    uint64_t seed, const std::string &example_model) {
  ValidationResult result;
  result.inputs_description = "seeded";
  const CircleSubGraph &g = model.subgraphs.at(0);
  if (package.strategies.size() <= 1)
    return result;
  const auto &spec = registry.requireRuntime(runtime_name).spec;
  auto runtime = spec.create(Options::resolve("runtime '" + spec.name + "'", spec.options, {}));
  std::unique_ptr<PreparedModel> prepared;
  try {
    prepared = runtime->prepare(std::make_shared<const CircleModel>(model));
  } catch (const std::exception &e) {
    // A runtime that cannot run the package proves nothing: every strategy goes.
    for (std::size_t s = 0; s < package.strategies.size(); ++s)
      if (!package.strategies[s].monolith)
        result.failed.emplace_back(s, std::string("validation: the runtime '") + runtime_name +
                                          "' cannot run the packaged model: " + e.what());
    return result;
  }

  // (cache filled from, strategy run on) pairs of input sets.
  std::vector<std::pair<std::vector<Value>, std::vector<Value>>> scenarios;
  scenarios.emplace_back(seededInputs(model, seed), seededInputs(model, seed + 1));
  if (!example_model.empty()) {
    std::string why;
    auto example = exampleInputs(registry, model, example_model, why);
    if (example.empty()) {
      result.inputs_description = "seeded (example inputs not used: " + why + ")";
    } else {
      result.inputs_description = "seeded + example-inputs";
      scenarios.emplace_back(scenarios[0].first, example);
      scenarios.emplace_back(example, scenarios[0].second);
    }
  }

  using Env = std::map<int32_t, Value>;
  auto runSteps = [&](const std::vector<std::size_t> &steps, Env env) {
    for (std::size_t k : steps) {
      const Callable &c = package.callables[k];
      std::vector<Value> feeds;
      for (int32_t t : c.inputs) {
        auto it = env.find(t);
        if (it == env.end())
          throw Error("tensor '" + g.tensors[t].name + "' needed by " + c.signature + " is neither an input nor retained");
        feeds.push_back(it->second);
      }
      auto outs = prepared->run(feeds, c.subgraph);
      for (std::size_t i = 0; i < c.outputs.size() && i < outs.size(); ++i)
        env[c.outputs[i]] = outs[i];
    }
    return env;
  };
  auto publicEnv = [&](const std::vector<Value> &x) {
    Env env;
    for (std::size_t i = 0; i < g.inputs.size(); ++i)
      env[g.inputs[i]] = x[i];
    return env;
  };
  std::vector<std::size_t> all_steps;
  for (std::size_t k = 0; k < package.callables.size(); ++k)
    if (!package.callables[k].fused)
      all_steps.push_back(k);

  for (const auto &[x0, x1] : scenarios) {
    Env primed;
    std::string primed_error;
    try {
      primed = runSteps(all_steps, publicEnv(x0));
    } catch (const std::exception &e) {
      primed_error = e.what();
    }

    for (std::size_t s = 0; s < package.strategies.size(); ++s) {
      if (std::any_of(result.failed.begin(), result.failed.end(), [&](const auto &f) { return f.first == s; }))
        continue; // one reason per strategy
      const Strategy &strategy = package.strategies[s];
      if (strategy.monolith)
        continue;
      try {
        if (!primed_error.empty())
          throw Error("the regions do not run: " + primed_error);
        std::vector<Value> x = x0;
        for (std::size_t i = 0; i < g.inputs.size(); ++i)
          if (strategy.changed & (GroupSet{1} << groups.group_of_input[i]))
            x[i] = x1[i];
        Env start = publicEnv(x);
        for (int32_t t : strategy.reads_retained)
          start[t] = primed.at(t);
        auto expected = prepared->run(x, 0);
        std::vector<std::pair<std::string, Env>> runs{{"", runSteps(strategy.steps, start)}};
        if (strategy.fused)
          runs.emplace_back(package.callables[*strategy.fused].signature + ": ",
                            runSteps({*strategy.fused}, start));
        if (runs.size() == 2)
          for (int32_t t : strategy.writes_retained)
            if (!runs[1].second.count(t) || !runs[0].second.at(t)->sameElements(*runs[1].second.at(t)))
              throw Error(runs[1].first + "retained '" + g.tensors[t].name + "' differs from the steps' value");
        for (const auto &[label, env] : runs)
          for (std::size_t o = 0; o < g.outputs.size(); ++o) {
            auto it = env.find(g.outputs[o]);
            if (it == env.end())
              throw Error(label + "public output '" + g.tensors[g.outputs[o]].name +
                          "' is neither computed nor retained");
            if (!it->second->sameElements(*expected.at(o)))
              throw Error(label + "public output '" + g.tensors[g.outputs[o]].name + "' differs from the monolith's");
          }
      } catch (const std::exception &e) {
        result.failed.emplace_back(s, std::string("validation on the runtime '") + runtime_name + "': " + e.what());
      }
    }
  }
  return result;
}

} // namespace tico::incremental
