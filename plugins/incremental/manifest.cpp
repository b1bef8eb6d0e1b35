// The manifest, schema incremental.manifest.v1 (every field is described in docs/incremental.md).
// It is all a runtime layer needs: which signature runs what, the contracts of every callable
// input and output, which tensors are retained and which groups their values depend on (the
// cache key), the strategies as ordered steps with their costs, and why candidates were refused.
// Keys are written in a fixed order and arrays in index order, so the text is deterministic.
#include "incremental.h"

#include "tico/circle/query.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <set>

namespace tico::incremental {
namespace {

using json = nlohmann::ordered_json;

json shapeOf(const CircleTensor &t) {
  json shape = json::array();
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    shape.push_back(!t.shape_signature.empty() && i < t.shape_signature.size() && t.shape_signature[i] < 0
                        ? -1
                        : t.shape[i]);
  return shape;
}

json qparams(const CircleTensor &t) {
  if (!isQuantized(t))
    return nullptr;
  const auto &q = *t.quantization;
  return json{{"scale", q.scale}, {"zero_point", q.zero_point}, {"quantized_dimension", q.quantized_dimension}};
}

json contract(const CircleTensor &t) {
  return json{{"name", t.name},
              {"dtype", circle::EnumNameTensorType(t.type)},
              {"shape", shapeOf(t)},
              {"qparams", qparams(t)}};
}

json names(const CircleSubGraph &g, const std::vector<int32_t> &tensors) {
  json out = json::array();
  for (int32_t t : tensors)
    out.push_back(g.tensors[t].name);
  return out;
}

} // namespace

std::string manifestJson(const CircleModel &model, const InputGroups &groups, const SupportAnalysis &analysis,
                         const Package &package, const ManifestContext &context) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  const std::set<int32_t> retained(package.retained.begin(), package.retained.end());
  json doc;
  doc["format"] = kManifestName;
  doc["version"] = 1;
  doc["model"] = {{"model_id", context.model_id},
                  {"monolith_subgraph", 0},
                  {"monolith_signature", monolithSignature(model)}};
  json groups_json = json::array();
  for (std::size_t k = 0; k < groups.names.size(); ++k) {
    json inputs = json::array();
    for (uint32_t i : groups.inputs[k])
      inputs.push_back(g.tensors[g.inputs[i]].name);
    groups_json.push_back({{"name", groups.names[k]}, {"inputs", inputs}});
  }
  doc["groups"] = groups_json;
  json inputs = json::array();
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    json c = contract(g.tensors[g.inputs[i]]);
    c["group"] = groups.names[groups.group_of_input[i]];
    inputs.push_back(c);
  }
  doc["inputs"] = inputs;
  json outputs = json::array();
  for (int32_t t : g.outputs) {
    json c = contract(g.tensors[t]);
    c["support"] = groupNames(groups, analysis.tensor_support[t]);
    outputs.push_back(c);
  }
  doc["outputs"] = outputs;

  json callables = json::array();
  for (const Callable &c : package.callables) {
    json ins = json::array(), outs = json::array();
    for (int32_t t : c.inputs) {
      json x = contract(g.tensors[t]);
      x["source"] = analysis.producer[t] < 0 ? "input" : "retained";
      ins.push_back(x);
    }
    for (int32_t t : c.outputs) {
      json x = contract(g.tensors[t]);
      x["public"] = analysis.is_public_output[t] != 0;
      x["retained"] = retained.count(t) != 0;
      outs.push_back(x);
    }
    callables.push_back({{"signature", c.signature},
                         {"subgraph", c.subgraph},
                         {"kind", c.fused ? "fused_strategy" : std::popcount(c.support) == 1 ? "region" : "fusion_tail"},
                         {"support", groupNames(groups, c.support)},
                         {"id", c.id},
                         {"inputs", ins},
                         {"outputs", outs},
                         {"est_macs", c.macs}});
  }
  doc["callables"] = callables;

  json retained_json = json::array();
  for (int32_t t : package.retained) {
    json x = contract(g.tensors[t]);
    std::string producer, producer_id;
    std::size_t output_index = 0;
    for (const Callable &c : package.callables)
      for (std::size_t o = 0; o < c.outputs.size(); ++o)
        if (c.outputs[o] == t) {
          producer = c.signature;
          producer_id = c.id;
          output_index = o;
        }
    x["producer"] = producer;
    x["producer_id"] = producer_id;
    x["output_index"] = output_index;
    x["support"] = groupNames(groups, analysis.tensor_support[t]);
    x["bytes"] = tensorBytes(g.tensors[t]);
    retained_json.push_back(x);
  }
  doc["retained"] = retained_json;

  json strategies = json::array();
  for (const Strategy &s : package.strategies) {
    json steps = json::array();
    if (s.monolith)
      steps.push_back(monolithSignature(model));
    for (std::size_t k : s.steps)
      steps.push_back(package.callables[k].signature);
    uint64_t read_bytes = 0;
    for (int32_t t : s.reads_retained)
      read_bytes += tensorBytes(g.tensors[t]);
    const double ratio = context.monolith_macs ? static_cast<double>(s.macs) / context.monolith_macs : 1.0;
    strategies.push_back({{"name", s.name},
                          {"kind", s.monolith ? "monolith" : "steps"},
                          {"steps", steps},
                          {"fused", s.fused ? json(package.callables[*s.fused].signature) : json(nullptr)},
                          {"changed", groupNames(groups, s.changed)},
                          {"reads_retained", names(g, s.reads_retained)},
                          {"writes_retained", names(g, s.writes_retained)},
                          {"reads_retained_bytes", read_bytes},
                          {"est_macs", s.macs},
                          {"mac_ratio", ratio},
                          {"validated", true}});
  }
  doc["strategies"] = strategies;

  json rejected = json::array();
  for (const Rejection &r : context.rejected)
    rejected.push_back({{"changed", groupNames(groups, r.changed)}, {"reason", r.reason}});
  doc["rejected"] = rejected;

  uint64_t retained_bytes = 0;
  for (int32_t t : package.retained)
    retained_bytes += tensorBytes(g.tensors[t]);
  doc["budget"] = {{"retained_bytes", context.budget ? json(*context.budget) : json(nullptr)},
                   {"retained_bytes_used", retained_bytes},
                   {"max_strategies", context.max_strategies}};
  doc["validation"] = {{"runtime", context.runtime},
                       {"inputs", context.validation_inputs},
                       {"seed", context.seed},
                       {"contract", "bitwise"}};
  doc["cache"] = {{"input_version", "content"},
                  {"key", "callable id + output name + versions of the groups in the value's support"}};
  return doc.dump(2) + "\n";
}

} // namespace tico::incremental
