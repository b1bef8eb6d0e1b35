// The manifest's promises checked against what the model's subgraphs compute (tracker issue 31:
// a manifest with an input moved to another group verified clean, and serve-incremental returned
// wrong results from it). The names and counts are parseManifest's; here the support sets are
// recomputed from the dataflow of subgraph 0 and of every callable, starting from nothing but the
// input groups, and every strategy is replayed on names:
//
// - the groups partition subgraph 0's inputs, which the manifest lists by name in order;
// - each public output's and each retained value's support is what the dataflow gives;
// - a retained value's type and shape are its producer's output port's;
// - a strategy reads only retained values that none of its changed groups reaches (the runtime
//   would serve them stale), every step finds its inputs (public inputs, retained values it
//   reads, earlier steps' outputs), and the steps produce every public output and every retained
//   value the strategy writes.
//
// A tensor's support is the union of its producer's inputs' supports: an operator's outputs
// depend at most on its inputs (control flow included), so the sets are sound whatever the ops.
#include "manifest_view.h"

#include "tico/support/error.h"

#include <set>

namespace tico::incremental::runtime {
namespace {

using json = nlohmann::json;

// Support of every tensor of `sg`, given its inputs' supports (in input order).
std::vector<Mask> tensorSupport(const CircleSubGraph &sg, const std::vector<Mask> &inputs) {
  std::vector<Mask> mask(sg.tensors.size(), 0);
  for (std::size_t i = 0; i < sg.inputs.size() && i < inputs.size(); ++i)
    if (sg.inputs[i] >= 0 && static_cast<std::size_t>(sg.inputs[i]) < mask.size())
      mask[static_cast<std::size_t>(sg.inputs[i])] |= inputs[i];
  for (const CircleOperator &op : sg.operators) {
    Mask m = 0;
    for (int32_t t : op.inputs)
      if (t >= 0 && static_cast<std::size_t>(t) < mask.size())
        m |= mask[static_cast<std::size_t>(t)];
    for (int32_t t : op.outputs)
      if (t >= 0 && static_cast<std::size_t>(t) < mask.size())
        mask[static_cast<std::size_t>(t)] |= m;
  }
  return mask;
}

std::string contractText(const json &port) {
  return port.value("dtype", std::string("?")) + " " + port.value("shape", json::array()).dump();
}

} // namespace

std::vector<std::string> dataflowProblems(const CircleModel &model, const json &m, const ManifestView &v) {
  std::vector<std::string> problems;
  auto text = [&](Mask mask) { return "{" + maskText(v, mask) + "}"; };
  const CircleSubGraph &main = model.subgraphs[0];

  // Inputs by name and order; groups as a partition.
  std::map<std::string, Mask> input_support;
  for (std::size_t i = 0; i < v.input_names.size(); ++i) {
    const auto index = main.inputs[i];
    const std::string &actual = main.tensors.at(static_cast<std::size_t>(index)).name;
    if (actual != v.input_names[i])
      problems.push_back("input " + std::to_string(i) + " is '" + v.input_names[i] + "', subgraph 0's is '" + actual +
                         "'");
    input_support[v.input_names[i]] = v.input_group[i];
  }
  std::map<std::string, std::size_t> listed;
  const auto &groups = m.at("groups");
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const auto &name : groups[g].at("inputs")) {
      const std::string input = name.get<std::string>();
      auto it = input_support.find(input);
      if (it == input_support.end())
        problems.push_back("group '" + v.groups[g] + "' lists '" + input + "', which is no input of subgraph 0");
      else if (it->second != (Mask{1} << g))
        problems.push_back("group '" + v.groups[g] + "' lists input '" + input + "', whose entry says group " +
                           text(it->second));
      ++listed[input];
    }
  for (const auto &name : v.input_names)
    if (listed[name] != 1)
      problems.push_back("input '" + name + "' is in " + std::to_string(listed[name]) + " groups (one expected)");

  // Subgraph 0's dataflow: public outputs, and retained values that are monolith tensors.
  std::vector<Mask> mono = tensorSupport(main, v.input_group);
  std::map<std::string, Mask> mono_by_name;
  for (std::size_t t = 0; t < main.tensors.size(); ++t)
    mono_by_name.emplace(main.tensors[t].name, mono[t]);
  const auto &outputs = m.at("outputs");
  for (std::size_t o = 0; o < outputs.size() && o < main.outputs.size(); ++o) {
    if (!outputs[o].contains("support"))
      continue;
    const Mask declared = groupMask(v, outputs[o].at("support"), "public output '" + v.output_names[o] + "'");
    const Mask computed = mono[static_cast<std::size_t>(main.outputs[o])];
    if (declared != computed)
      problems.push_back("public output '" + v.output_names[o] + "' declares support " + text(declared) +
                         ", subgraph 0 computes it from " + text(computed));
  }

  // Every callable's dataflow, in manifest order (a region reads only values of smaller support,
  // which the planner emits first), from the supports of what feeds it.
  const auto &callables = m.at("callables");
  std::map<std::string, Mask> computed_retained;
  std::map<std::string, const json *> producer_port;
  for (std::size_t c = 0; c < callables.size(); ++c) {
    const CallableView &cv = v.callables[c];
    const CircleSubGraph &sg = model.subgraphs[cv.subgraph];
    std::vector<Mask> in;
    const auto &ports = callables[c].at("inputs");
    for (std::size_t p = 0; p < ports.size(); ++p) {
      const std::string name = cv.inputs[p];
      const std::string source = ports[p].value("source", std::string());
      if (auto it = input_support.find(name); it != input_support.end() && source != "retained") {
        in.push_back(it->second);
      } else if (auto r = v.retained_index.find(name); r != v.retained_index.end()) {
        in.push_back(v.retained[r->second].support); // declared; checked where it is produced
      } else {
        // An output of another callable the same strategy runs first (fusion tails): its
        // support, when known.
        auto known = computed_retained.find(name);
        in.push_back(known != computed_retained.end() ? known->second : v.all());
      }
    }
    const std::vector<Mask> support = tensorSupport(sg, in);
    const auto &outs = callables[c].at("outputs");
    for (std::size_t o = 0; o < sg.outputs.size() && o < cv.outputs.size(); ++o) {
      computed_retained[cv.outputs[o]] = support[static_cast<std::size_t>(sg.outputs[o])];
      if (o < outs.size())
        producer_port[cv.outputs[o]] = &outs[o];
    }
  }
  const auto &retained = m.at("retained");
  for (std::size_t r = 0; r < v.retained.size(); ++r) {
    const RetainedView &rv = v.retained[r];
    const std::string producer = retained[r].at("producer").get<std::string>();
    Mask computed = v.all();
    if (auto it = mono_by_name.find(rv.name); it != mono_by_name.end())
      computed = it->second;
    else if (auto c = computed_retained.find(rv.name); c != computed_retained.end())
      computed = c->second;
    if (computed != rv.support)
      problems.push_back("retained value '" + rv.name + "' declares support " + text(rv.support) +
                         ", the model computes it from " + text(computed));
    if (auto port = producer_port.find(rv.name); port != producer_port.end()) {
      const json &p = *port->second;
      if (retained[r].value("dtype", json()) != p.value("dtype", json()) ||
          retained[r].value("shape", json()) != p.value("shape", json()))
        problems.push_back("retained value '" + rv.name + "' is declared " + contractText(retained[r]) + ", its producer '" +
                           producer + "' writes " + contractText(p));
    }
  }

  // Every strategy replayed on names.
  for (const StrategyView &sv : v.strategies) {
    if (sv.monolith)
      continue;
    const std::string where = "strategy '" + sv.name + "'";
    std::set<std::string> available(v.input_names.begin(), v.input_names.end());
    for (std::size_t r : sv.reads) {
      const RetainedView &rv = v.retained[r];
      if (rv.support & sv.changed)
        problems.push_back(where + " reads retained value '" + rv.name + "', which depends on " +
                           text(rv.support & sv.changed) + " that the strategy serves changes of: it would be stale");
      available.insert(rv.name);
    }
    std::vector<std::size_t> steps = sv.fused.empty() ? sv.steps : sv.fused;
    for (std::size_t c : steps) {
      const CallableView &cv = v.callables[c];
      for (const auto &name : cv.inputs)
        if (!available.count(name))
          problems.push_back(where + ": step '" + cv.signature + "' reads '" + name +
                             "', which is no public input, retained value it reads or earlier step's output");
      available.insert(cv.outputs.begin(), cv.outputs.end());
    }
    for (const auto &name : v.output_names)
      if (!available.count(name))
        problems.push_back(where + " never computes the public output '" + name + "'");
    for (std::size_t r : sv.writes)
      if (!available.count(v.retained[r].name))
        problems.push_back(where + " writes retained value '" + v.retained[r].name + "', which none of its steps computes");
  }
  return problems;
}

} // namespace tico::incremental::runtime
