#include "pt2/consistency.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <map>
#include <optional>
#include <utility>

namespace tico::pt2 {
namespace {

std::string quote(const std::string &s) { return "'" + clipped(s) + "'"; }

// The value an Argument union names: a tensor, symbol, custom object or token name; nullopt
// for constants (as_none, as_int, ...), which carry no name to compare.
std::optional<std::string> namedValue(const Json &argument) {
  if (!argument.is_object() || argument.size() != 1)
    return std::nullopt;
  const auto member = argument.begin();
  const std::string &variant = member.key();
  const Json &payload = member.value();
  if (!payload.is_object())
    return std::nullopt;
  const char *key = variant == "as_sym_int" || variant == "as_sym_float" || variant == "as_sym_bool" ? "as_name"
                                                                                                     : "name";
  const Json *name = optionalField(payload, key);
  if (name && name->is_string())
    return name->get<std::string>();
  return std::nullopt;
}

// The value an input or output spec names. Specs whose `arg` is a full Argument (user
// inputs and outputs) and those whose `arg` is a bare {"name": ...} both work.
std::optional<std::string> specValue(const Json &spec) {
  if (!spec.is_object() || spec.size() != 1)
    return std::nullopt;
  const Json &body = spec.begin().value();
  const Json *arg = optionalField(body, "arg");
  if (!arg)
    return std::nullopt;
  if (const Json *name = optionalField(*arg, "name"); name && name->is_string())
    return name->get<std::string>();
  return namedValue(*arg);
}

void compareLists(const Json &graph_list, const Json &specs, const char *graph_field, const char *spec_field,
                  const char *noun) {
  if (graph_list.size() != specs.size())
    throw Error(std::string("graph.") + graph_field + " has " + std::to_string(graph_list.size()) + " " + noun +
                "s but signature." + spec_field + " describes " + std::to_string(specs.size()));
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto in_graph = namedValue(graph_list[i]);
    const auto in_spec = specValue(specs[i]);
    if (in_graph && in_spec && *in_graph != *in_spec)
      throw Error(std::string(noun) + " " + std::to_string(i) + ": signature." + spec_field + "[" + std::to_string(i) +
                  "] names " + quote(*in_spec) + " but graph." + graph_field + "[" + std::to_string(i) + "] is " +
                  quote(*in_graph));
  }
}

std::string dimsText(const Json &dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    out += i ? ", " : "";
    const Json &d = dims[i];
    if (const Json *n = d.is_object() ? optionalField(d, "as_int") : nullptr; n && n->is_number_integer())
      out += std::to_string(n->get<int64_t>());
    else
      out += "?"; // symbolic
  }
  return out + "]";
}

} // namespace

void checkOpsetVersions(const Json &program) {
  const Json *opsets = optionalField(program, "opset_version");
  if (!opsets)
    return;
  for (const auto &[name, version_json] : asObject(*opsets, "opset_version").items()) {
    const int64_t version = asInt(version_json, "opset_version '" + name + "'");
    if (version < 0)
      throw Error("opset_version '" + name + "' is " + std::to_string(version) + ", not a version number");
    if (name == "aten" && version != kAtenOpsetVersion)
      throw Error("the program uses aten operator set " + std::to_string(version) + "; this tico reads aten operator set " +
                  std::to_string(kAtenOpsetVersion) + " (written by PyTorch 2.13), whose operators may differ " +
                  "(re-export the model with PyTorch 2.13)");
    if (name != "aten") {
      TICO_DEBUG << "operator set '" << name << "' version " << version;
    }
  }
}

void checkSignatureMatchesGraph(const Json &graph, const Json &signature) {
  const Json *graph_inputs = optionalField(graph, "inputs");
  const Json *input_specs = optionalField(signature, "input_specs");
  if (graph_inputs && input_specs && graph_inputs->is_array() && input_specs->is_array())
    compareLists(*graph_inputs, *input_specs, "inputs", "input_specs", "input");
  const Json *graph_outputs = optionalField(graph, "outputs");
  const Json *output_specs = optionalField(signature, "output_specs");
  if (graph_outputs && output_specs && graph_outputs->is_array() && output_specs->is_array())
    compareLists(*graph_outputs, *output_specs, "outputs", "output_specs", "output");

  // Messages call a tensor by its role in the signature when it has one.
  std::map<std::string, std::string> roles;
  for (auto [specs, noun] : {std::pair{output_specs, "output "}, std::pair{input_specs, "input "}})
    if (specs && specs->is_array())
      for (std::size_t i = 0; i < specs->size(); ++i)
        if (auto name = specValue((*specs)[i]))
          roles[*name] = noun + std::to_string(i) + " " + quote(*name);

  const Json *tensors = optionalField(graph, "tensor_values");
  if (!tensors || !tensors->is_object())
    return;
  for (const auto &[name, meta] : tensors->items()) {
    auto role = roles.find(name);
    const Json *sizes = optionalField(meta, "sizes");
    const Json *strides = optionalField(meta, "strides");
    if (sizes && strides && sizes->is_array() && strides->is_array() && sizes->size() != strides->size())
      throw Error((role != roles.end() ? role->second : "tensor " + quote(name)) + ": graph.tensor_values gives sizes " + dimsText(*sizes) + " (rank " +
                  std::to_string(sizes->size()) + ") but strides " + dimsText(*strides) + " (rank " +
                  std::to_string(strides->size()) + "); one of them was changed after export");
  }
}

} // namespace tico::pt2
