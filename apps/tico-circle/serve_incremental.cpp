// tico-circle serve-incremental: replays a trace of input changes through the incremental
// runtime layer (core/incremental-runtime, docs/incremental.md) and reports what it did: the
// cache's hit rate, the strategies chosen, step latencies, the layer's own time per step
// (dispatch overhead), retained bytes and evictions; --check compares every step with the
// monolith bit for bit.
//
// Inputs are seeded (incremental_trace.h): every input group has --pool values and a trace step
// moves some groups to other entries. Only the inputs of changed groups are set again, as a
// caller would; the layer versions them by content, or (--versions caller) the pool entry is
// the version, which leaves hashing out of the layer's time.
#include "incremental_manifest.h"
#include "incremental_trace.h"
#include "tool.h"

#include "incremental_runtime.h"
#include "seeded_inputs.h"

#include "tico/circle/verify.h"
#include "tico/interpreter/interpreter.h"
#include "tico/pipeline/manifest.h" // parseByteSize
#include "tico/support/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>

namespace tico::circle_tool {
namespace {

using json = nlohmann::ordered_json;
using Value = std::shared_ptr<const TensorData>;
namespace rt = incremental::runtime;

struct ServeRequest {
  std::string input, mix, trace_file, budget = "64MiB";
  std::vector<std::string> int_bounds;
  uint32_t steps = 1000, reference_runs = 30;
  int pool = 8;
  uint64_t seed = 1;
  std::string versions = "content";
  bool check = false, as_json = false, fused = false, mac_only = false;
};

double quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

bool sameBits(const std::vector<Value> &a, const std::vector<Value> &b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i]->dtype != b[i]->dtype || a[i]->sizes != b[i]->sizes || a[i]->contiguousBytes() != b[i]->contiguousBytes())
      return false;
  return true;
}

std::map<std::string, int64_t> intBounds(const std::vector<std::string> &specs) {
  std::map<std::string, int64_t> out;
  for (const auto &s : specs) {
    const auto eq = s.find('=');
    try {
      if (eq == std::string::npos)
        throw Error("");
      out[s.substr(0, eq)] = std::stoll(s.substr(eq + 1));
    } catch (const std::exception &) {
      throw Error("--int-bound takes NAME=N, not '" + s + "'");
    }
  }
  return out;
}

std::string fixed(double value, int digits) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

void printText(const json &r, std::ostream &out) {
  out << r["model"].get<std::string>() << ": " << r["steps"] << " steps of trace " << r["trace"].get<std::string>()
      << " (pool " << r["pool"] << ", seed " << r["seed"] << "), budget "
      << (r["budget_bytes"].is_null() ? std::string("unlimited") : r["budget_bytes"].dump() + " bytes") << "\n";
  const json &c = r["cache"];
  out << "cache: hit rate " << fixed(c["hit_rate"].get<double>(), 4) << " (" << c["hits"] << " hits, " << c["misses"]
      << " misses; " << c["full"] << " full, " << c["unchanged"] << " unchanged steps); retained " << c["retained_bytes"]
      << " bytes, peak " << c["peak_retained_bytes"] << "; " << c["evictions"] << " evictions (" << c["evicted_bytes"]
      << " bytes), " << c["refused"] << " refused\n";
  const json &l = r["latency"];
  out << "latency: step median " << fixed(l["step_median_ms"].get<double>(), 3) << " ms, mean "
      << fixed(l["step_mean_ms"].get<double>(), 3) << " ms; monolith alone median "
      << fixed(l["monolith_median_ms"].get<double>(), 3) << " ms (" << l["reference_runs"] << " runs, "
      << l["reference"].get<std::string>() << ")\n";
  out << "strategies:\n";
  for (const auto &[name, s] : r["strategies"].items())
    out << "  " << name << ": " << s["steps"] << " steps, median " << fixed(s["median_ms"].get<double>(), 3)
        << " ms (latency ratio " << fixed(s["latency_ratio"].get<double>(), 3) << ", MAC ratio "
        << (s["mac_ratio"].is_null() ? std::string("-") : fixed(s["mac_ratio"].get<double>(), 3)) << ")\n";
  const json &o = r["overhead"];
  out << "dispatch overhead: median " << fixed(o["median_us"].get<double>(), 1) << " us, p95 "
      << fixed(o["p95_us"].get<double>(), 1) << " us, max " << fixed(o["max_us"].get<double>(), 1) << " us; "
      << fixed(100.0 * o["median_fraction_of_monolith"].get<double>(), 3) << " % of the monolith\n";
  if (!r["check"].is_null())
    out << "check: " << r["check"]["mismatches"] << " of " << r["check"]["steps"]
        << " steps differ from the monolith\n";
}

int serve(const ServeRequest &request) {
  if (!request.mix.empty() && !request.trace_file.empty())
    throw Error("give --trace or --trace-file, not both");
  if (request.steps == 0)
    throw Error("--steps must be at least 1");
  if (request.versions != "content" && request.versions != "caller")
    throw Error("--versions takes content or caller, not '" + request.versions + "'");
  const bool caller_versions = request.versions == "caller";
  auto model = std::make_shared<const CircleModel>(loadModel(request.input));
  checkCircleModel(*model, "'" + request.input + "'");
  const auto manifest = readIncrementalManifest(*model);
  if (!manifest)
    throw Error("'" + request.input + "' has no incremental manifest (convert with tico-run --incremental)");
  rt::Options options;
  if (request.budget != "none")
    options.budget = parseByteSize(request.budget);
  options.observe_latency = !request.mac_only;
  options.fused = request.fused;
  rt::Runtime runtime(model, *manifest, options);
  const CircleInterpreter reference(model); // the monolith, for --check and the latency baseline

  TraceGroups groups;
  for (const auto &g : (*manifest)["groups"]) {
    groups.names.push_back(g["name"].get<std::string>());
    groups.inputs.push_back(g["inputs"].get<std::vector<std::string>>());
  }
  std::string mix = request.mix;
  if (mix.empty() && request.trace_file.empty())
    for (const auto &name : groups.names) // every group equally often
      mix += (mix.empty() ? "" : ",") + name + ":1";
  const Trace trace = request.trace_file.empty()
                          ? seededTrace(groups, mix, request.steps, request.pool, request.seed)
                          : traceFromFile(groups, request.trace_file, request.pool, request.seed);

  // pool[input][entry]: seeded values, drawn before the run so the trace alone decides them.
  const auto bounds = intBounds(request.int_bounds);
  const auto infos = reference.inputs(0);
  std::mt19937_64 rng(request.seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<std::vector<Value>> pool(infos.size());
  std::vector<std::size_t> group_of(infos.size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const auto bit = runtime.groupOfInput(i);
    while (!(bit & (rt::Mask{1} << group_of[i])))
      ++group_of[i];
    const int64_t bound = bounds.count(infos[i].name) ? bounds.at(infos[i].name) : 2;
    for (int k = 0; k < request.pool; ++k)
      pool[i].push_back(rt::seededInput(infos[i], rng, bound));
  }
  auto feeds = [&](const std::vector<int> &state) {
    std::vector<Value> x;
    for (std::size_t i = 0; i < infos.size(); ++i)
      x.push_back(pool[i][static_cast<std::size_t>(state[group_of[i]])]);
    return x;
  };

  std::vector<double> step_seconds, overhead;
  std::map<std::string, std::vector<double>> per_strategy;
  std::map<std::vector<int>, std::vector<Value>> expected;
  std::vector<double> interleaved; // --check's monolith runs, between the steps
  uint64_t mismatches = 0;
  for (std::size_t s = 0; s < trace.size(); ++s) {
    const auto x = feeds(trace[s]);
    for (std::size_t i = 0; i < infos.size(); ++i)
      if (s == 0 || trace[s][group_of[i]] != trace[s - 1][group_of[i]]) {
        if (caller_versions) // the pool entry identifies the value
          runtime.setInput(i, x[i], static_cast<uint64_t>(trace[s][group_of[i]]));
        else
          runtime.setInput(i, x[i]);
      }
    const rt::StepResult step = runtime.run();
    step_seconds.push_back(step.seconds);
    overhead.push_back(step.overhead_seconds);
    per_strategy[step.strategy].push_back(step.seconds);
    if (request.check) {
      auto it = expected.find(trace[s]);
      if (it == expected.end()) {
        const auto t0 = std::chrono::steady_clock::now();
        it = expected.emplace(trace[s], reference.run(x, 0)).first;
        interleaved.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      if (!sameBits(step.outputs, it->second) && ++mismatches <= 5)
        std::cerr << "step " << s << " (" << step.strategy << "): outputs differ from the monolith\n";
    }
  }
  std::vector<double> mono;
  const auto x0 = feeds(trace[0]);
  for (uint32_t r = 0; r < request.reference_runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)reference.run(x0, 0);
    mono.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  // The baseline: --check's monolith runs when there are some (taken between the steps, so in
  // the same machine state as them: a shared machine drifts), else the runs after the trace.
  const bool use_interleaved = !interleaved.empty();
  const double mono_median = quantile(use_interleaved ? interleaved : mono, 0.5);

  const rt::Stats &stats = runtime.stats();
  json r;
  r["model"] = request.input;
  r["steps"] = trace.size();
  r["trace"] = request.trace_file.empty() ? mix : "file " + request.trace_file;
  r["pool"] = request.pool;
  r["seed"] = request.seed;
  r["versions"] = request.versions;
  r["budget_bytes"] = options.budget ? json(*options.budget) : json();
  r["cache"] = {{"hit_rate", stats.hitRate()},
                {"hits", stats.hits},
                {"misses", stats.misses},
                {"full", stats.full},
                {"unchanged", stats.unchanged},
                {"retained_bytes", stats.residency.bytes},
                {"peak_retained_bytes", stats.residency.peak_bytes},
                {"insertions", stats.residency.insertions},
                {"evictions", stats.residency.evictions},
                {"evicted_bytes", stats.residency.evicted_bytes},
                {"refused", stats.residency.refused}};
  double total_seconds = 0;
  for (double t : step_seconds)
    total_seconds += t;
  r["latency"] = {{"step_median_ms", 1e3 * quantile(step_seconds, 0.5)},
                  {"step_mean_ms", 1e3 * total_seconds / static_cast<double>(step_seconds.size())},
                  {"monolith_median_ms", 1e3 * mono_median},
                  {"reference_runs", use_interleaved ? interleaved.size() : mono.size()},
                  {"reference", use_interleaved ? "interleaved (--check)" : "after the trace"}};
  json strategies = json::object();
  for (const auto &name : runtime.strategyNames())
    if (per_strategy.count(name)) {
      json mac_ratio;
      for (const auto &s : (*manifest)["strategies"])
        if (s["name"] == name)
          mac_ratio = s["mac_ratio"];
      const double median = quantile(per_strategy[name], 0.5);
      strategies[name] = {{"steps", per_strategy[name].size()},
                          {"median_ms", 1e3 * median},
                          {"latency_ratio", mono_median > 0 ? median / mono_median : 0.0},
                          {"mac_ratio", mac_ratio}};
    }
  if (per_strategy.count("unchanged"))
    strategies["unchanged"] = {{"steps", per_strategy["unchanged"].size()},
                               {"median_ms", 1e3 * quantile(per_strategy["unchanged"], 0.5)},
                               {"latency_ratio", 0.0},
                               {"mac_ratio", 0.0}};
  r["strategies"] = strategies;
  const double overhead_median = quantile(overhead, 0.5);
  r["overhead"] = {{"median_us", 1e6 * overhead_median},
                   {"p95_us", 1e6 * quantile(overhead, 0.95)},
                   {"max_us", 1e6 * quantile(overhead, 1.0)},
                   {"median_fraction_of_monolith", mono_median > 0 ? overhead_median / mono_median : 0.0}};
  r["check"] = request.check ? json{{"steps", trace.size()}, {"mismatches", mismatches}} : json();
  if (request.as_json)
    std::cout << r.dump(2) << "\n";
  else
    printText(r, std::cout);
  return mismatches == 0 ? kOk : kWarnings;
}

} // namespace

Action addServeIncremental(CLI::App &app) {
  auto request = std::make_shared<ServeRequest>();
  app.add_option("model", request->input, "Circle file converted with tico-run --incremental")->required();
  app.add_option("--trace", request->mix,
                 "seeded change mix NAME:WEIGHT,... (a group or input name, all, none; default: every group equally)");
  app.add_option("--trace-file", request->trace_file, "a trace file: one step per line (see docs/circle-tools.md)");
  app.add_option("--steps", request->steps, "steps of a seeded trace, the first included (default 1000)");
  app.add_option("--pool", request->pool, "seeded values per input group (default 8)");
  app.add_option("--seed", request->seed, "seed of the trace and the input values (default 1)");
  app.add_option("--budget", request->budget, "bytes the retained values may take (64MiB, 1536, none; default 64MiB)");
  app.add_option("--int-bound", request->int_bounds, "integer input NAME takes values in [0, N) (NAME=N; default 2)")
      ->allow_extra_args(false);
  app.add_option("--reference-runs", request->reference_runs, "runs of the monolith alone after the trace for the baseline without --check (default 30)");
  app.add_option("--versions", request->versions,
                 "content: the layer hashes each input set (default); caller: the pool entry is the version");
  app.add_flag("--check", request->check, "compare every step with the monolith bit for bit (exit 1 on a difference)");
  app.add_flag("--fused", request->fused, "run a strategy's fused callable when the file has one");
  app.add_flag("--mac-only", request->mac_only, "select on MAC estimates only, not observed latency (deterministic)");
  app.add_flag("--json", request->as_json, "print a JSON document instead of text");
  return [request] { return serve(*request); };
}

} // namespace tico::circle_tool
