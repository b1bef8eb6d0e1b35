#include "manifest_view.h"

#include "tico/support/error.h"
#include "tico/support/json_integer.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace tico::incremental::runtime {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string &what) { throw Error("incremental manifest: " + what); }

// Runs `body`; a missing field, a wrong type or an index out of range in the manifest becomes
// this module's error (parseStructure and the dataflow checks both read untrusted JSON).
template <class Body> auto readingJson(Body &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const json::exception &e) {
    bad(std::string("a field is missing or has the wrong type: ") + e.what());
  } catch (const std::out_of_range &e) {
    bad(std::string("an index or name is out of range: ") + e.what());
  }
}

// The integer field `key` of `object`, which must fit T (a float or a negative count is refused).
template <class T> T integerAt(const json &object, const char *key, const std::string &where) {
  const auto value = jsonInteger<T>(object.at(key));
  if (!value)
    bad(where + ": '" + key + "' must be an integer in range, got " + object.at(key).dump());
  return *value;
}

std::vector<std::string> names(const json &ports) {
  std::vector<std::string> out;
  for (const auto &p : ports)
    out.push_back(p.at("name").get<std::string>());
  return out;
}

} // namespace

Mask groupMask(const ManifestView &view, const json &names, const std::string &where) {
  Mask m = 0;
  for (const auto &n : names) {
    const std::string name = n.get<std::string>();
    std::optional<std::size_t> found;
    for (std::size_t g = 0; g < view.groups.size(); ++g)
      if (view.groups[g] == name)
        found = g; // the last of equal names, as a name -> index map would keep
    if (!found)
      bad(where + " names the unknown group '" + name + "'");
    m |= Mask{1} << *found;
  }
  return m;
}

std::string maskText(const ManifestView &view, Mask mask) {
  std::string out;
  for (std::size_t g = 0; g < view.groups.size(); ++g)
    if (mask & (Mask{1} << g))
      out += (out.empty() ? "" : ", ") + view.groups[g];
  return out.empty() ? "none" : out;
}

// Names, counts and references (the first problem throws); the dataflow is checked after.
static ManifestView parseStructure(const CircleModel &model, const json &m) {
  return readingJson([&] {
    if (m.value("format", std::string()) != "incremental.manifest.v1")
      bad("format is not incremental.manifest.v1");
    ManifestView v;
    v.model_id = m.at("model").at("model_id").get<std::string>();
    for (const auto &g : m.at("groups"))
      v.groups.push_back(g.at("name").get<std::string>());
    if (v.groups.empty() || v.groups.size() > 16)
      bad("needs 1 to 16 input groups, has " + std::to_string(v.groups.size()));
    if (model.subgraphs.empty())
      bad("the model has no subgraph");
    for (const auto &in : m.at("inputs")) {
      v.input_names.push_back(in.at("name").get<std::string>());
      v.input_group.push_back(groupMask(v, json::array({in.at("group")}), "input " + v.input_names.back()));
    }
    if (v.input_names.size() != model.subgraphs[0].inputs.size())
      bad("lists " + std::to_string(v.input_names.size()) + " inputs, subgraph 0 takes " +
          std::to_string(model.subgraphs[0].inputs.size()));
    v.output_names = names(m.at("outputs"));

    std::map<std::string, std::size_t> callable_index;
    for (const auto &c : m.at("callables")) {
      CallableView cv;
      cv.signature = c.at("signature").get<std::string>();
      cv.subgraph = integerAt<uint32_t>(c, "subgraph", "callable '" + cv.signature + "'");
      cv.est_macs = integerAt<uint64_t>(c, "est_macs", "callable '" + cv.signature + "'");
      cv.inputs = names(c.at("inputs"));
      cv.outputs = names(c.at("outputs"));
      if (cv.subgraph == 0 || cv.subgraph >= model.subgraphs.size())
        bad("callable '" + cv.signature + "' names subgraph " + std::to_string(cv.subgraph));
      const CircleSubGraph &sg = model.subgraphs[cv.subgraph];
      if (sg.inputs.size() != cv.inputs.size() || sg.outputs.size() != cv.outputs.size())
        bad("callable '" + cv.signature + "' does not match the ports of subgraph " + std::to_string(cv.subgraph));
      callable_index[cv.signature] = v.callables.size();
      v.callables.push_back(std::move(cv));
    }
    // The monolith as a callable of its own, so costs and observations treat it like the others.
    const std::string main = m.at("model").value("monolith_signature", std::string("main"));
    CallableView mono{main, 0, 0, v.input_names, v.output_names};
    if (model.subgraphs[0].outputs.size() != mono.outputs.size())
      bad("lists " + std::to_string(mono.outputs.size()) + " outputs, subgraph 0 has " +
          std::to_string(model.subgraphs[0].outputs.size()));

    for (const auto &r : m.at("retained")) {
      RetainedView rv;
      rv.name = r.at("name").get<std::string>();
      rv.support = groupMask(v, r.at("support"), "retained value '" + rv.name + "'");
      rv.bytes = integerAt<uint64_t>(r, "bytes", "retained value '" + rv.name + "'");
      const std::string producer = r.at("producer").get<std::string>();
      auto p = callable_index.find(producer);
      if (p == callable_index.end())
        bad("retained value '" + rv.name + "' names the unknown producer '" + producer + "'");
      const auto &outs = v.callables[p->second].outputs;
      const auto at = std::find(outs.begin(), outs.end(), rv.name);
      if (at == outs.end())
        bad("retained value '" + rv.name + "' is not an output of '" + producer + "'");
      // The producer's canonical id (not its signature): the same function on the same inputs
      // computes the same value whatever the file calls it.
      const auto &callable_json = m.at("callables")[p->second];
      rv.key_prefix = v.model_id + "|" + callable_json.at("id").get<std::string>() + "|" +
                      std::to_string(at - outs.begin());
      v.retained_index[rv.name] = v.retained.size();
      v.retained.push_back(std::move(rv));
    }

    auto retainedList = [&](const json &list, const std::string &where) {
      std::vector<std::size_t> out;
      for (const auto &n : list) {
        auto it = v.retained_index.find(n.get<std::string>());
        if (it == v.retained_index.end())
          bad(where + " names the unknown retained value '" + n.get<std::string>() + "'");
        out.push_back(it->second);
      }
      return out;
    };
    for (const auto &s : m.at("strategies")) {
      StrategyView sv;
      sv.name = s.at("name").get<std::string>();
      sv.monolith = s.at("kind").get<std::string>() == "monolith";
      sv.changed = groupMask(v, s.at("changed"), "strategy '" + sv.name + "'");
      sv.est_macs = integerAt<uint64_t>(s, "est_macs", "strategy '" + sv.name + "'");
      sv.reads = retainedList(s.at("reads_retained"), "strategy '" + sv.name + "'");
      sv.writes = retainedList(s.at("writes_retained"), "strategy '" + sv.name + "'");
      if (sv.monolith) {
        if (!v.strategies.empty())
          bad("the monolith must be the first strategy");
        mono.est_macs = sv.est_macs;
        sv.steps = {v.callables.size()}; // `main`, appended below
      } else {
        for (const auto &step : s.at("steps")) {
          auto it = callable_index.find(step.get<std::string>());
          if (it == callable_index.end())
            bad("strategy '" + sv.name + "' names the unknown callable '" + step.get<std::string>() + "'");
          sv.steps.push_back(it->second);
        }
        if (s.contains("fused") && s["fused"].is_string()) {
          auto it = callable_index.find(s["fused"].get<std::string>());
          if (it == callable_index.end())
            bad("strategy '" + sv.name + "' names the unknown fused callable '" + s["fused"].get<std::string>() + "'");
          sv.fused = {it->second};
        }
      }
      v.strategies.push_back(std::move(sv));
    }
    if (v.strategies.empty() || !v.strategies[0].monolith)
      bad("the first strategy must be the monolith");
    v.callables.push_back(std::move(mono));
    return v;
  });
}

// The dataflow problems, with a malformed field inside them reported like parseStructure's.
static std::vector<std::string> dataflowOf(const CircleModel &model, const json &m, const ManifestView &v) {
  return readingJson([&] { return dataflowProblems(model, m, v); });
}

ManifestView parseManifest(const CircleModel &model, const json &m) {
  ManifestView v = parseStructure(model, m);
  if (const auto problems = dataflowOf(model, m, v); !problems.empty())
    bad(problems.front() +
        (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more problems)" : ""));
  return v;
}

std::vector<std::string> manifestProblems(const CircleModel &model, const json &m) {
  try {
    const ManifestView v = parseStructure(model, m);
    std::vector<std::string> out;
    for (const auto &problem : dataflowOf(model, m, v))
      out.push_back("incremental manifest: " + problem);
    return out;
  } catch (const Error &e) {
    return {e.what()};
  }
}

} // namespace tico::incremental::runtime
