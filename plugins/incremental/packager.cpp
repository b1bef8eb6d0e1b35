// Packaging, layout "regions + tails" (docs/incremental.md): one callable per canonical region
// R_S (all operators whose support is exactly S, plus copies of the constant-only operators
// they read), one strategy per chosen change set as the ordered callables of the regions it
// dirties. The callables become extra subgraphs of the same model: their tensors refer to the
// monolith's buffers, so weights are stored once; subgraph 0 is left exactly as it was.
#include "incremental.h"

#include "tico/circle/query.h"

#include <algorithm>
#include <map>
#include <set>

namespace tico::incremental {
namespace {

std::string join(const std::vector<std::string> &parts, const std::string &sep) {
  std::string out;
  for (const auto &p : parts)
    out += (out.empty() ? "" : sep) + p;
  return out;
}

// What a set of monolith operators computes, costs and reads from outside itself: the public
// inputs first (in the monolith's order), then retained values; constants stay inside.
struct Boundary {
  std::set<int32_t> produced;
  std::vector<int32_t> inputs;
  uint64_t macs = 0;
};

Boundary boundaryOf(const CircleModel &model, const std::vector<uint32_t> &operators, const SupportAnalysis &analysis,
                    const std::map<int32_t, std::size_t> &public_input) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  Boundary b;
  std::set<int32_t> read;
  for (uint32_t o : operators) {
    for (int32_t t : g.operators[o].outputs)
      if (t >= 0)
        b.produced.insert(t);
    for (int32_t t : g.operators[o].inputs)
      if (t >= 0)
        read.insert(t);
    b.macs += operatorMacs(model, g.operators[o]);
  }
  std::vector<int32_t> others;
  for (int32_t t : read)
    if (!b.produced.count(t) && analysis.tensor_support[t])
      (public_input.count(t) ? b.inputs : others).push_back(t);
  std::sort(b.inputs.begin(), b.inputs.end(),
            [&](int32_t x, int32_t y) { return public_input.at(x) < public_input.at(y); });
  b.inputs.insert(b.inputs.end(), others.begin(), others.end());
  return b;
}

} // namespace

std::string monolithSignature(const CircleModel &model) {
  for (const auto &s : model.signatures)
    if (s.subgraph_index == 0)
      return s.key;
  return "main";
}

Package buildPackage(const CircleModel &model, const InputGroups &groups, const SupportAnalysis &analysis,
                     const Plan &plan, bool fused) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  Package package;
  package.retained = plan.retained;
  const std::set<int32_t> retained(plan.retained.begin(), plan.retained.end());
  std::map<int32_t, std::size_t> public_input;
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    public_input.emplace(g.inputs[i], i);

  Strategy monolith;
  monolith.name = "monolithic";
  monolith.changed = groups.all();
  monolith.monolith = true;
  monolith.macs = plan.monolith_macs;
  for (int32_t t : plan.retained)
    if (analysis.is_public_output[t])
      monolith.writes_retained.push_back(t);
  package.strategies.push_back(monolith);
  if (plan.chosen.empty())
    return package;

  for (GroupSet support : regionSupports(analysis)) {
    Callable c;
    c.support = support;
    const auto names = groupNames(groups, support);
    c.signature = (names.size() == 1 ? "region_" : "tail_") + join(names, "__");
    std::set<uint32_t> ops;
    std::vector<uint32_t> work;
    for (uint32_t o = 0; o < analysis.op_support.size(); ++o)
      if (analysis.op_support[o] == support) {
        ops.insert(o);
        work.push_back(o);
      }
    // Constant-only producers the region reads, transitively: recomputed in each callable that
    // needs them (they are constant, so every copy gives the monolith's value).
    while (!work.empty()) {
      const uint32_t o = work.back();
      work.pop_back();
      for (int32_t t : g.operators[o].inputs) {
        if (t < 0 || analysis.tensor_support[t] || analysis.producer[t] < 0)
          continue;
        const auto p = static_cast<uint32_t>(analysis.producer[t]);
        if (ops.insert(p).second)
          work.push_back(p);
      }
    }
    c.operators.assign(ops.begin(), ops.end());
    Boundary boundary = boundaryOf(model, c.operators, analysis, public_input);
    c.macs = boundary.macs;
    c.inputs = std::move(boundary.inputs);
    for (int32_t t : boundary.produced) {
      if (analysis.tensor_support[t] != support)
        continue; // a constant-only copy's result stays inside
      bool out = analysis.is_public_output[t] != 0;
      for (uint32_t r : analysis.consumers[t])
        out |= analysis.op_support[r] != support && analysis.op_support[r] != 0;
      if (out)
        c.outputs.push_back(t);
    }
    c.id = callableIdentity(model, c);
    package.callables.push_back(std::move(c));
  }

  auto strategyFor = [&](GroupSet changed, const std::vector<int32_t> &reads, std::string name) {
    Strategy s;
    s.name = std::move(name);
    s.changed = changed;
    s.reads_retained = reads;
    for (std::size_t k = 0; k < package.callables.size(); ++k) {
      const Callable &c = package.callables[k];
      if (!(c.support & changed))
        continue;
      s.steps.push_back(k);
      s.macs += c.macs;
      for (int32_t t : c.outputs)
        if (retained.count(t))
          s.writes_retained.push_back(t);
    }
    std::sort(s.writes_retained.begin(), s.writes_retained.end());
    return s;
  };
  for (const Candidate &c : plan.chosen)
    package.strategies.push_back(strategyFor(c.changed, c.frontier, "changed_" + join(groupNames(groups, c.changed), "__")));
  // Every retained value refreshed in one go (after a call that used the monolith, whose outputs
  // need not include them): all regions, all groups changed.
  package.strategies.push_back(strategyFor(groups.all(), {}, "all_changed"));

  if (fused) {
    // Layout A: the union of a strategy's step operators in monolith order (a constant-only
    // operator copied into several steps appears once); inputs are what it reads from outside
    // (public inputs, then retained values), outputs the public outputs it computes and the
    // retained values it refreshes.
    for (Strategy &s : package.strategies) {
      if (s.monolith || s.name == "all_changed")
        continue;
      Callable f;
      f.fused = true;
      f.support = s.changed;
      f.signature = "fused_" + s.name;
      std::set<uint32_t> ops;
      for (std::size_t k : s.steps)
        ops.insert(package.callables[k].operators.begin(), package.callables[k].operators.end());
      f.operators.assign(ops.begin(), ops.end());
      Boundary boundary = boundaryOf(model, f.operators, analysis, public_input);
      f.macs = boundary.macs;
      f.inputs = std::move(boundary.inputs);
      const std::set<int32_t> writes(s.writes_retained.begin(), s.writes_retained.end());
      for (int32_t t : boundary.produced)
        if (analysis.is_public_output[t] || writes.count(t))
          f.outputs.push_back(t);
      f.id = callableIdentity(model, f);
      s.fused = package.callables.size();
      package.callables.push_back(std::move(f));
    }
  }
  return package;
}

void emitCallables(CircleModel &model, Package &package) {
  if (std::none_of(model.signatures.begin(), model.signatures.end(),
                   [](const CircleSignature &s) { return s.subgraph_index == 0; })) {
    const CircleSubGraph &main = model.subgraphs.at(0);
    CircleSignature sig;
    sig.key = "main";
    sig.subgraph_index = 0;
    for (int32_t t : main.inputs)
      sig.inputs.push_back({main.tensors[t].name, static_cast<uint32_t>(t)});
    for (int32_t t : main.outputs)
      sig.outputs.push_back({main.tensors[t].name, static_cast<uint32_t>(t)});
    model.signatures.insert(model.signatures.begin(), std::move(sig));
  }
  for (Callable &c : package.callables) {
    const CircleSubGraph &main = model.subgraphs.at(0);
    CircleSubGraph sub;
    sub.name = c.signature;
    std::map<int32_t, int32_t> remap;
    auto use = [&](int32_t t) -> int32_t {
      if (t < 0)
        return t;
      auto [it, inserted] = remap.emplace(t, static_cast<int32_t>(sub.tensors.size()));
      if (inserted)
        sub.tensors.push_back(main.tensors[t]); // same buffer index: the payload is shared
      return it->second;
    };
    for (int32_t t : c.inputs)
      sub.inputs.push_back(use(t));
    for (uint32_t o : c.operators) {
      CircleOperator op = main.operators[o];
      for (int32_t &t : op.inputs)
        t = use(t);
      for (int32_t &t : op.outputs)
        t = use(t);
      sub.operators.push_back(std::move(op));
    }
    for (int32_t t : c.outputs)
      sub.outputs.push_back(use(t));
    CircleSignature sig;
    sig.key = c.signature;
    sig.subgraph_index = static_cast<uint32_t>(model.subgraphs.size());
    for (std::size_t i = 0; i < c.inputs.size(); ++i)
      sig.inputs.push_back({main.tensors[c.inputs[i]].name, static_cast<uint32_t>(sub.inputs[i])});
    for (std::size_t i = 0; i < c.outputs.size(); ++i)
      sig.outputs.push_back({main.tensors[c.outputs[i]].name, static_cast<uint32_t>(sub.outputs[i])});
    c.subgraph = sig.subgraph_index;
    model.subgraphs.push_back(std::move(sub));
    model.signatures.push_back(std::move(sig));
  }
}

} // namespace tico::incremental
