// Versions, selection, revalidation and execution of the runtime layer (docs/incremental.md,
// "The runtime layer").
#include "incremental_runtime.h"

#include "cost.h"
#include "manifest_view.h"

#include "tico/interpreter/interpreter.h"
#include "tico/support/error.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <set>

namespace tico::incremental::runtime {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char *kUnchanged = "unchanged";

// FNV-1a 64: versions and decision tokens identify, they do not authenticate.
struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void *data, std::size_t n) {
    const auto *p = static_cast<const unsigned char *>(data);
    for (std::size_t i = 0; i < n; ++i)
      h = (h ^ p[i]) * 1099511628211ull;
  }
  void u64(uint64_t v) { bytes(&v, sizeof v); }
  void text(const std::string &s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
};

// An input's contents as one 64-bit word, 8 bytes at a time through xxHash64's round (multiply,
// rotate, multiply) and its final avalanche: about 0.1 ns per byte, where FNV-1a's byte loop
// took 1 ns (half of the tiny CLIP's 6 us of dispatch per step went to hashing its 3 KiB image).
// Like FNV it identifies, it does not authenticate.
uint64_t contentHash(const void *data, std::size_t n) {
  constexpr uint64_t kP1 = 11400714785074694791ull, kP2 = 14029467366897019727ull, kP3 = 1609587929392839161ull;
  const auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = kP3 + n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    h ^= rotl(word * kP2, 31) * kP1;
    h = rotl(h, 27) * kP1 + kP3;
  }
  for (; i < n; ++i)
    h = rotl(h ^ (p[i] * kP1), 11) * kP2;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Distinguishes the runtimes of one process, so a decision of one is refused by another.
std::atomic<uint64_t> next_instance{1};

} // namespace

const char *stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::Unchanged: return "unchanged";
  case StepKind::Full: return "full";
  case StepKind::Hit: return "hit";
  case StepKind::Miss: return "miss";
  }
  return "?";
}

struct Runtime::Impl {
  std::shared_ptr<const CircleModel> model;
  ManifestView view;
  Options options;
  CircleInterpreter interpreter;
  CostModel cost;
  Residency cache;
  Stats stats;
  uint64_t instance = next_instance++;

  std::vector<std::shared_ptr<const TensorData>> inputs;
  std::vector<std::optional<uint64_t>> input_versions;
  std::optional<std::vector<uint64_t>> last_versions; // per group, at the last run
  std::vector<std::shared_ptr<const TensorData>> last_outputs;
  double pending_seconds = 0; // versioning time since the last step, charged to the next one

  Impl(std::shared_ptr<const CircleModel> m, const nlohmann::json &manifest, Options o)
      : model(std::move(m)), view(parseManifest(*model, manifest)), options(o), interpreter(model),
        cost(macsOf(view), o.ewma_alpha, o.cold_penalty, o.observe_latency), cache(o.budget) {
    inputs.resize(view.input_names.size());
    input_versions.resize(view.input_names.size());
  }

  static std::vector<uint64_t> macsOf(const ManifestView &v) {
    std::vector<uint64_t> out;
    for (const auto &c : v.callables)
      out.push_back(c.est_macs);
    return out;
  }

  std::size_t strategyIndex(const std::string &name) const {
    for (std::size_t s = 0; s < view.strategies.size(); ++s)
      if (view.strategies[s].name == name)
        return s;
    return view.strategies.size();
  }

  std::vector<uint64_t> groupVersions() const {
    std::vector<Fnv> per_group(view.groups.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!input_versions[i])
        throw Error("incremental runtime: input '" + view.input_names[i] + "' was never set");
      for (std::size_t g = 0; g < view.groups.size(); ++g)
        if (view.input_group[i] == (Mask{1} << g))
          per_group[g].u64(*input_versions[i]);
    }
    std::vector<uint64_t> out;
    for (const auto &f : per_group)
      out.push_back(f.h);
    return out;
  }

  Mask changedMask(const std::vector<uint64_t> &versions) const {
    if (!last_versions)
      return view.all();
    Mask m = 0;
    for (std::size_t g = 0; g < versions.size(); ++g)
      if (versions[g] != (*last_versions)[g])
        m |= Mask{1} << g;
    return m;
  }

  // K(v): model id, producer id, output index (the prefix), then the versions of exactly the
  // groups in the value's support, so a change elsewhere does not invalidate it.
  std::string key(const RetainedView &r, const std::vector<uint64_t> &versions) const {
    std::string k = r.key_prefix;
    char text[40];
    for (std::size_t g = 0; g < versions.size(); ++g)
      if (r.support & (Mask{1} << g)) {
        std::snprintf(text, sizeof text, "|%zu=%016llx", g, static_cast<unsigned long long>(versions[g]));
        k += text;
      }
    return k;
  }

  bool servable(const StrategyView &s, const std::vector<uint64_t> &versions) const {
    for (std::size_t r : s.reads)
      if (!cache.contains(key(view.retained[r], versions)))
        return false;
    return true;
  }

  const std::vector<std::size_t> &callablesOf(const StrategyView &s) const {
    return options.fused && !s.fused.empty() ? s.fused : s.steps;
  }

  uint64_t bytesOf(const std::vector<std::size_t> &values) const {
    uint64_t n = 0;
    for (std::size_t r : values)
      n += view.retained[r].bytes;
    return n;
  }

  // Whether the budget can hold everything some cache-reading strategy reads: otherwise no
  // refresh can ever make a step a hit.
  bool someReadsFit() const {
    for (const auto &s : view.strategies)
      if (!s.reads.empty() && (!options.budget || bytesOf(s.reads) <= *options.budget))
        return true;
    return false;
  }

  // The selection rule (docs/incremental.md, "Selection").
  std::pair<std::size_t, StepKind> select(Mask changed, const std::vector<uint64_t> &versions) const {
    if (changed == 0 && !last_outputs.empty())
      return {view.strategies.size(), StepKind::Unchanged};
    if ((changed & view.all()) == view.all())
      return {0, StepKind::Full};
    // Any strategy whose retained reads are cached for the current versions computes the
    // current outputs (its keys carry the versions of everything the values depend on); the
    // cheapest wins, the monolith included in the comparison.
    std::size_t best = 0;
    double best_cost = cost.predict(callablesOf(view.strategies[0]));
    bool hit = false;
    for (std::size_t s = 1; s < view.strategies.size(); ++s) {
      const StrategyView &sv = view.strategies[s];
      if (sv.reads.empty() || !servable(sv, versions))
        continue;
      hit = true;
      const double c = cost.predict(callablesOf(sv));
      if (c < best_cost) {
        best = s;
        best_cost = c;
      }
    }
    if (hit)
      return {best, StepKind::Hit};
    // A miss: the monolith leaves most retained values unwritten (it outputs only the public
    // ones), so the strategy that reads nothing and writes the most retained values runs
    // instead (what fits the budget is kept), making a later partial change a hit. The
    // monolith when there is none or when the budget cannot hold any strategy's reads.
    std::size_t refresh = 0;
    if (someReadsFit())
      for (std::size_t s = 1; s < view.strategies.size(); ++s) {
        const StrategyView &sv = view.strategies[s];
        if (sv.reads.empty() && sv.writes.size() > view.strategies[refresh].writes.size())
          refresh = s;
      }
    return {refresh, StepKind::Miss};
  }

  uint64_t token(const Decision &d) const {
    Fnv f;
    f.u64(instance);
    f.text(d.model_id);
    f.text(d.strategy);
    f.u64(d.changed);
    for (uint64_t v : d.versions)
      f.u64(v);
    return f.h;
  }

  Decision make(const std::string &strategy, Mask changed, std::vector<uint64_t> versions) const {
    Decision d{view.model_id, strategy, changed, std::move(versions), 0};
    d.token = token(d);
    return d;
  }

  // Throws unless `d` was made by this runtime, unedited, for the current state.
  std::size_t revalidate(const Decision &d, const std::vector<uint64_t> &versions, Mask changed) const {
    if (d.model_id != view.model_id)
      throw Error("forged decision: made for model " + d.model_id + ", this runtime serves " + view.model_id);
    const std::size_t s = strategyIndex(d.strategy);
    if (s == view.strategies.size() && d.strategy != kUnchanged) {
      std::string known;
      for (const auto &sv : view.strategies)
        known += (known.empty() ? "" : ", ") + sv.name;
      throw Error("forged decision: '" + d.strategy + "' is no strategy of the manifest (" + known + ")");
    }
    if (d.token != token(d))
      throw Error("forged decision: strategy '" + d.strategy + "' was not decided by this runtime or was edited");
    if (d.versions != versions || d.changed != changed)
      throw Error("stale decision: the inputs changed since strategy '" + d.strategy + "' was decided (now changed: " +
                  maskText(view, changed) + ")");
    if (s == view.strategies.size()) {
      if (changed != 0 || last_outputs.empty())
        throw Error("stale decision: 'unchanged' but groups changed: " + maskText(view, changed));
      return s;
    }
    for (std::size_t r : view.strategies[s].reads)
      if (!cache.contains(key(view.retained[r], versions)))
        throw Error("stale decision: strategy '" + d.strategy + "' reads retained value '" + view.retained[r].name +
                    "', which is not cached for the current input versions (evicted or never computed)");
    return s;
  }

  StepResult execute(std::size_t s, StepKind kind, Mask changed, const std::vector<uint64_t> &versions,
                     Clock::time_point start) {
    StepResult result;
    result.kind = kind;
    result.changed = changed;
    if (s == view.strategies.size()) {
      result.strategy = kUnchanged;
      result.outputs = last_outputs;
    } else {
      const StrategyView &sv = view.strategies[s];
      result.strategy = sv.name;
      std::map<std::string, std::shared_ptr<const TensorData>> env;
      for (std::size_t i = 0; i < inputs.size(); ++i)
        env[view.input_names[i]] = inputs[i];
      std::set<std::string> pinned;
      for (std::size_t r : sv.reads) {
        const std::string k = key(view.retained[r], versions);
        env[view.retained[r].name] = cache.use(k);
        pinned.insert(k);
      }
      for (std::size_t c : callablesOf(sv)) {
        const CallableView &cv = view.callables[c];
        std::vector<std::shared_ptr<const TensorData>> in;
        in.reserve(cv.inputs.size());
        for (const auto &name : cv.inputs) {
          auto it = env.find(name);
          if (it == env.end())
            throw Error("incremental runtime: callable '" + cv.signature + "' of strategy '" + sv.name +
                        "' reads '" + name + "', which no earlier step computed");
          in.push_back(it->second);
        }
        const auto t0 = Clock::now();
        auto out = interpreter.run(in, cv.subgraph);
        const double t = since(t0);
        result.execute_seconds += t;
        cost.record(c, t);
        for (std::size_t o = 0; o < out.size(); ++o)
          env[cv.outputs[o]] = std::move(out[o]);
      }
      for (std::size_t r : sv.writes) {
        const std::string k = key(view.retained[r], versions);
        if (cache.put(k, env.at(view.retained[r].name), view.retained[r].bytes, pinned))
          pinned.insert(k);
      }
      for (const auto &name : view.output_names)
        result.outputs.push_back(env.at(name));
      last_outputs = result.outputs;
      last_versions = versions;
    }
    ++stats.steps;
    ++stats.strategies[result.strategy];
    switch (kind) {
    case StepKind::Unchanged: ++stats.unchanged; break;
    case StepKind::Full: ++stats.full; break;
    case StepKind::Hit: ++stats.hits; break;
    case StepKind::Miss: ++stats.misses; break;
    }
    stats.residency = cache.stats();
    result.seconds = since(start) + pending_seconds;
    pending_seconds = 0;
    result.overhead_seconds = result.seconds - result.execute_seconds;
    return result;
  }
};

Runtime::Runtime(std::shared_ptr<const CircleModel> model, const nlohmann::json &manifest, Options options)
    : impl_(std::make_unique<Impl>(std::move(model), manifest, options)) {}
Runtime::~Runtime() = default;
Runtime::Runtime(Runtime &&) noexcept = default;
Runtime &Runtime::operator=(Runtime &&) noexcept = default;

const std::vector<std::string> &Runtime::groups() const { return impl_->view.groups; }
const std::vector<std::string> &Runtime::inputNames() const { return impl_->view.input_names; }
Mask Runtime::groupOfInput(std::size_t index) const { return impl_->view.input_group.at(index); }

std::vector<std::string> Runtime::strategyNames() const {
  std::vector<std::string> out;
  for (const auto &s : impl_->view.strategies)
    out.push_back(s.name);
  return out;
}

void Runtime::setInput(std::size_t index, std::shared_ptr<const TensorData> value) {
  const auto start = Clock::now();
  if (!value)
    throw Error("incremental runtime: input " + std::to_string(index) + " is null");
  Fnv f;
  f.u64(static_cast<uint64_t>(value->dtype));
  f.u64(value->sizes.size());
  for (int64_t d : value->sizes)
    f.u64(static_cast<uint64_t>(d));
  if (value->isContiguous())
    f.u64(contentHash(value->data(), value->nbytes()));
  else {
    const auto bytes = value->contiguousBytes();
    f.u64(contentHash(bytes.data(), bytes.size()));
  }
  setInput(index, std::move(value), f.h);
  impl_->pending_seconds += since(start);
}

void Runtime::setInput(std::size_t index, std::shared_ptr<const TensorData> value, uint64_t version) {
  if (index >= impl_->inputs.size())
    throw Error("incremental runtime: input " + std::to_string(index) + " out of range (the model takes " +
                std::to_string(impl_->inputs.size()) + ")");
  if (!value)
    throw Error("incremental runtime: input '" + impl_->view.input_names[index] + "' is null");
  impl_->inputs[index] = std::move(value);
  impl_->input_versions[index] = version;
}

Mask Runtime::changed() const { return impl_->changedMask(impl_->groupVersions()); }

Decision Runtime::decide() const {
  auto versions = impl_->groupVersions();
  const Mask changed = impl_->changedMask(versions);
  const auto [s, kind] = impl_->select(changed, versions);
  (void)kind;
  return impl_->make(s == impl_->view.strategies.size() ? kUnchanged : impl_->view.strategies[s].name, changed,
                     std::move(versions));
}

Decision Runtime::force(const std::string &strategy) const {
  auto versions = impl_->groupVersions();
  const Mask changed = impl_->changedMask(versions);
  return impl_->make(strategy, changed, std::move(versions));
}

StepResult Runtime::run() {
  const auto start = Clock::now();
  auto versions = impl_->groupVersions();
  const Mask changed = impl_->changedMask(versions);
  const auto [s, kind] = impl_->select(changed, versions);
  return impl_->execute(s, kind, changed, versions, start);
}

StepResult Runtime::run(const Decision &decision) {
  const auto start = Clock::now();
  auto versions = impl_->groupVersions();
  const Mask changed = impl_->changedMask(versions);
  const std::size_t s = impl_->revalidate(decision, versions, changed);
  // The kind is what the automatic selection would have said about this change.
  const StepKind kind = impl_->select(changed, versions).second;
  return impl_->execute(s, kind, changed, versions, start);
}

const Stats &Runtime::stats() const { return impl_->stats; }

std::string Runtime::cacheKey(const std::string &retained) const {
  auto it = impl_->view.retained_index.find(retained);
  if (it == impl_->view.retained_index.end())
    throw Error("incremental runtime: no retained value '" + retained + "'");
  return impl_->key(impl_->view.retained[it->second], impl_->groupVersions());
}

double Runtime::predictedCost(const std::string &strategy) const {
  const std::size_t s = impl_->strategyIndex(strategy);
  if (s == impl_->view.strategies.size())
    throw Error("incremental runtime: no strategy '" + strategy + "'");
  return impl_->cost.predict(impl_->callablesOf(impl_->view.strategies[s]));
}

} // namespace tico::incremental::runtime
