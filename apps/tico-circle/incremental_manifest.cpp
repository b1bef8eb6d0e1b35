// The incremental manifest in the Circle tools: what `inspect` prints about it and what `verify`
// checks (rule INCREMENTAL_MANIFEST). The checks are the packager's promises, read back from the
// file: a runtime that trusts the manifest must find every signature, subgraph and contract it
// names.
#include "incremental_manifest.h"

#include "tico/support/json_integer.h"

#include "manifest_view.h"

#include "tico/circle/query.h"
#include "tico/support/error.h"

#include <map>

namespace tico::circle_tool {
namespace {

using json = nlohmann::json;
constexpr const char *kName = "incremental.manifest.v1";
constexpr const char *kRule = "INCREMENTAL_MANIFEST";

const CircleSignature *findSignature(const CircleModel &model, const std::string &key) {
  for (const auto &s : model.signatures)
    if (s.key == key)
      return &s;
  return nullptr;
}

std::string shapeText(const CircleTensor &t) {
  std::string out = "[";
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(!t.shape_signature.empty() && t.shape_signature[i] < 0 ? -1 : t.shape[i]);
  return out + "]";
}

json shapeJson(const CircleTensor &t) {
  json shape = json::array();
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    shape.push_back(!t.shape_signature.empty() && t.shape_signature[i] < 0 ? -1 : t.shape[i]);
  return shape;
}

} // namespace

std::optional<json> readIncrementalManifest(const CircleModel &model) {
  for (const auto &[name, buffer] : model.metadata) {
    if (name != kName)
      continue;
    if (buffer >= model.buffers.size() || !model.buffers[buffer].data)
      throw Error(std::string("metadata '") + kName + "' names buffer " + std::to_string(buffer) + ", which holds no data");
    auto bytes = model.buffers[buffer].data->contiguousBytes();
    try {
      return json::parse(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
    } catch (const json::exception &e) {
      throw Error(std::string("metadata '") + kName + "' is not JSON: " + e.what());
    }
  }
  return std::nullopt;
}

static json summarizeWellTyped(const json &m) {
  json out;
  out["groups"] = json::array();
  for (const auto &g : m.value("groups", json::array()))
    out["groups"].push_back(g.value("name", ""));
  out["callables"] = json::array();
  for (const auto &c : m.value("callables", json::array()))
    out["callables"].push_back({{"signature", c.value("signature", "")},
                                {"kind", c.value("kind", "")},
                                {"support", c.value("support", json::array())},
                                {"est_macs", c.value("est_macs", 0)}});
  uint64_t bytes = 0;
  out["retained"] = json::array();
  for (const auto &r : m.value("retained", json::array())) {
    out["retained"].push_back(r.value("name", ""));
    bytes += r.value("bytes", uint64_t{0});
  }
  out["retained_bytes"] = bytes;
  out["strategies"] = json::array();
  for (const auto &s : m.value("strategies", json::array()))
    out["strategies"].push_back({{"name", s.value("name", "")},
                                 {"changed", s.value("changed", json::array())},
                                 {"steps", s.value("steps", json::array())},
                                 {"mac_ratio", s.value("mac_ratio", 1.0)}});
  out["rejected"] = m.value("rejected", json::array()).size();
  return out;
}

json summarizeIncrementalManifest(const json &m) {
  // A forged manifest may hold any JSON: a wrong type anywhere is this error, not an internal one.
  try {
    return summarizeWellTyped(m);
  } catch (const json::exception &e) {
    throw Error(std::string("metadata '") + kName + "' is malformed (a field is missing or has the wrong type): " +
                e.what());
  }
}

std::vector<CircleDiagnostic> checkIncrementalManifest(const CircleModel &model) {
  std::vector<CircleDiagnostic> out;
  auto fail = [&](const std::string &path, const std::string &message) {
    out.push_back({CircleSeverity::Error, kRule, path, message});
  };
  std::optional<json> parsed;
  try {
    parsed = readIncrementalManifest(model);
  } catch (const Error &e) {
    fail("model.metadata", e.what());
    return out;
  }
  if (!parsed)
    return out;
  const json &m = *parsed;
  try {
    if (m.value("format", "") != kName) {
      fail("manifest.format", "is '" + m.value("format", "") + "', expected '" + kName + "'");
      return out;
    }
    if (model.subgraphs.empty()) {
      fail("model.subgraphs", "the model has no subgraph 0 (the monolith)");
      return out;
    }
    const CircleSubGraph &main = model.subgraphs[0];
    const std::string main_key = m.at("model").at("monolith_signature").get<std::string>();
    const CircleSignature *main_sig = findSignature(model, main_key);
    if (!main_sig || main_sig->subgraph_index != 0)
      fail("manifest.model.monolith_signature", "signature '" + main_key + "' does not run subgraph 0");

    // Contracts of named values in the monolith (inputs, outputs and any tensor by name).
    std::map<std::string, const CircleTensor *> monolith;
    for (const auto &t : main.tensors)
      monolith.emplace(t.name, &t);
    const auto &inputs = m.at("inputs");
    if (inputs.size() != main.inputs.size())
      fail("manifest.inputs", std::to_string(inputs.size()) + " inputs, subgraph 0 has " +
                                  std::to_string(main.inputs.size()));
    for (std::size_t i = 0; i < inputs.size() && i < main.inputs.size(); ++i) {
      const CircleTensor &t = main.tensors.at(main.inputs[i]);
      if (inputs[i].at("name") != t.name || inputs[i].at("dtype") != circle::EnumNameTensorType(t.type) ||
          inputs[i].at("shape") != shapeJson(t))
        fail("manifest.inputs[" + std::to_string(i) + "]", "does not match subgraph 0's input '" + t.name + "' (" +
                                                               circle::EnumNameTensorType(t.type) + " " + shapeText(t) + ")");
    }

    // Each callable: its signature, subgraph, and port contracts.
    std::map<std::string, std::vector<std::pair<std::string, const CircleTensor *>>> retained_sides;
    std::map<std::string, bool> callable_keys{{main_key, true}};
    const auto &callables = m.at("callables");
    for (std::size_t c = 0; c < callables.size(); ++c) {
      const std::string path = "manifest.callables[" + std::to_string(c) + "]";
      const std::string key = callables[c].at("signature").get<std::string>();
      callable_keys[key] = true;
      const CircleSignature *sig = findSignature(model, key);
      if (!sig) {
        fail(path, "signature '" + key + "' is not in the file");
        continue;
      }
      const auto given = jsonInteger<uint32_t>(callables[c].at("subgraph"));
      if (!given) {
        fail(path, "'subgraph' must be an integer in range, got " + callables[c].at("subgraph").dump());
        continue;
      }
      const uint32_t sub = *given;
      if (sig->subgraph_index != sub || sub == 0 || sub >= model.subgraphs.size()) {
        fail(path, "signature '" + key + "' runs subgraph " + std::to_string(sig->subgraph_index) +
                       ", the manifest says " + std::to_string(sub));
        continue;
      }
      const CircleSubGraph &g = model.subgraphs[sub];
      for (const char *io : {"inputs", "outputs"}) {
        const auto &ports = callables[c].at(io);
        const auto &maps = std::string(io) == "inputs" ? sig->inputs : sig->outputs;
        if (ports.size() != maps.size()) {
          fail(path + "." + io, std::to_string(ports.size()) + " ports, signature '" + key + "' has " +
                                    std::to_string(maps.size()));
          continue;
        }
        for (std::size_t p = 0; p < ports.size(); ++p) {
          const std::string name = ports[p].at("name").get<std::string>();
          if (maps[p].name != name || maps[p].tensor_index >= g.tensors.size()) {
            fail(path + "." + io + "[" + std::to_string(p) + "]",
                 "'" + name + "' is not port " + std::to_string(p) + " of signature '" + key + "'");
            continue;
          }
          const CircleTensor &t = g.tensors[maps[p].tensor_index];
          if (ports[p].at("dtype") != circle::EnumNameTensorType(t.type) || ports[p].at("shape") != shapeJson(t))
            fail(path + "." + io + "[" + std::to_string(p) + "]",
                 "'" + name + "' is " + circle::EnumNameTensorType(t.type) + " " + shapeText(t) + " in the file");
          retained_sides[name].emplace_back(key, &t);
        }
      }
    }
    const auto &retained = m.at("retained");
    for (std::size_t r = 0; r < retained.size(); ++r) {
      const std::string name = retained[r].at("name").get<std::string>();
      auto mono = monolith.find(name);
      const auto &sides = retained_sides[name];
      if (sides.empty()) {
        fail("manifest.retained[" + std::to_string(r) + "]", "'" + name + "' is no callable's port");
        continue;
      }
      const CircleTensor *reference = mono != monolith.end() ? mono->second : sides.front().second;
      for (const auto &[key, t] : sides)
        if (!sameContract(*t, *reference))
          fail("manifest.retained[" + std::to_string(r) + "]",
               "'" + name + "' has another type, shape or quantization in signature '" + key + "' (" +
                   circle::EnumNameTensorType(t->type) + " " + shapeText(*t) + ") than in the monolith (" +
                   circle::EnumNameTensorType(reference->type) + " " + shapeText(*reference) + ")");
    }
    const auto &strategies = m.at("strategies");
    for (std::size_t s = 0; s < strategies.size(); ++s) {
      for (const auto &step : strategies[s].at("steps"))
        if (!callable_keys.count(step.get<std::string>()))
          fail("manifest.strategies[" + std::to_string(s) + "]",
               "step '" + step.get<std::string>() + "' is no callable of the manifest");
      const auto fused = strategies[s].value("fused", json());
      if (fused.is_string() && !callable_keys.count(fused.get<std::string>()))
        fail("manifest.strategies[" + std::to_string(s) + "]",
             "fused callable '" + fused.get<std::string>() + "' is no callable of the manifest");
    }
    if (strategies.empty() || strategies[0].value("kind", "") != "monolith")
      fail("manifest.strategies", "the first strategy is not the monolith");
  } catch (const json::exception &e) {
    fail("manifest", std::string("is missing a field or has one of the wrong type: ") + e.what());
  }
  // What a runtime checks before serving it: the supports recomputed from the input groups, the
  // retained contracts and every strategy replayed on names (a manifest with an input moved to
  // another group passed the checks above and was served with wrong results).
  if (out.empty())
    for (const std::string &problem : incremental::runtime::manifestProblems(model, m))
      fail("manifest", problem);
  return out;
}

} // namespace tico::circle_tool
