#include "pt2/graph_builder.h"

#include "pt2/consistency.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <limits>

namespace tico::pt2 {
namespace {

std::string quote(const std::string &s) { return "'" + clipped(s) + "'"; }

} // namespace

GraphBuilder::GraphBuilder(const Archive &archive, const Json &program, const OpSchemaRegistry &schemas)
    : archive_(archive), program_(program), schemas_(schemas) {}

std::unique_ptr<Graph> GraphBuilder::build() {
  asObject(program_, "exported program");
  checkSchemaVersion();
  checkOpsetVersions(program_);
  const Json &module = asObject(field(program_, "graph_module", "exported program"), "graph_module");
  graph_json_ = &asObject(field(module, "graph", "graph_module"), "graph_module.graph");
  const Json &signature = asObject(field(module, "signature", "graph_module"), "graph_module.signature");

  graph_ = std::make_unique<Graph>();
  graph_->setSchemas(&schemas_);
  readRangeConstraints();
  types_.emplace(*graph_json_, graph_->symbols());
  weights_.emplace(archive_, "weights");
  constants_.emplace(archive_, "constants");

  readInputs(asArray(field(signature, "input_specs", "signature"), "signature.input_specs"));
  readNodes(asArray(field(*graph_json_, "nodes", "graph"), "graph.nodes"));
  readOutputs(asArray(field(signature, "output_specs", "signature"), "signature.output_specs"));
  // After the specs are read, so a spec tico does not support is reported as such first.
  checkSignatureMatchesGraph(*graph_json_, signature);
  return std::move(graph_);
}

void GraphBuilder::checkSchemaVersion() {
  const Json &version = field(program_, "schema_version", "exported program");
  const int64_t major = asInt(field(version, "major", "schema_version"), "schema_version.major");
  const int64_t minor = asInt(field(version, "minor", "schema_version"), "schema_version.minor");
  const std::string text = std::to_string(major) + "." + std::to_string(minor);
  if (major != kSchemaMajor)
    throw Error("models/" + archive_.modelName() + ".json was written with export schema " + text +
                "; this tico reads schema " + std::to_string(kSchemaMajor) + " (PyTorch 2.13 writes " +
                std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinorWritten) + ")");
  std::string torch_version;
  if (const Json *tv = optionalField(program_, "torch_version"); tv && tv->is_string())
    torch_version = tv->get<std::string>();
  TICO_DEBUG << archive_.path() << ": export schema " << text
             << (torch_version.empty() ? "" : ", written by torch " + torch_version);
  if (minor > kSchemaMinorWritten) {
    TICO_WARN << archive_.path() << ": export schema " << text << " is newer than " << kSchemaMajor << "."
              << kSchemaMinorWritten << "; new argument kinds or dtypes will be rejected";
  }
}

void GraphBuilder::readRangeConstraints() {
  const Json *ranges = optionalField(program_, "range_constraints");
  if (!ranges)
    return;
  asObject(*ranges, "range_constraints");
  for (auto it = ranges->begin(); it != ranges->end(); ++it) {
    const std::string context = "range_constraints '" + it.key() + "'";
    SymbolRange range;
    // null bounds are unbounded; sizes are never negative, so a missing minimum is the
    // smallest integer rather than 0 only to stay faithful to the file.
    const Json *min = optionalField(asObject(it.value(), context), "min_val");
    range.min = min ? asInt(*min, context + " min_val") : std::numeric_limits<int64_t>::min();
    if (const Json *max = optionalField(it.value(), "max_val"))
      range.max = asInt(*max, context + " max_val");
    if (range.max && *range.max < range.min)
      throw Error(context + ": max_val " + std::to_string(*range.max) + " is below min_val " + std::to_string(range.min));
    graph_->symbols()[it.key()] = range;
  }
}

void GraphBuilder::define(Value *value, const std::string &json_name, const std::string &context) {
  // The graph renames a value whose name is taken; in an exported program that means the
  // name was defined twice.
  if ((inline_prefix_.empty() && value->name() != json_name) || values_.count(json_name))
    throw Error(context + ": value " + quote(json_name) + " is defined twice");
  values_.emplace(json_name, value);
}

// ---- nodes -----------------------------------------------------------------------------------

void GraphBuilder::readNodes(const Json &nodes) {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    readNode(asObject(nodes[i], "graph.nodes[" + std::to_string(i) + "]"), i);
  TICO_DEBUG << archive_.path() << ": read " << nodes.size() << " nodes";
}

void GraphBuilder::readNode(const Json &node, std::size_t index) {
  const Json &outputs = asArray(field(node, "outputs", "graph.nodes[" + std::to_string(index) + "]"), "node outputs");
  // Node names are in the schema since 8.16; older programs name nodes after their outputs.
  std::string name;
  if (const Json *n = optionalField(node, "name"))
    name = asString(*n, "graph.nodes[" + std::to_string(index) + "] name");
  const std::string context = name.empty() ? "graph.nodes[" + std::to_string(index) + "]" : "node " + quote(name);

  const std::string &target = asString(field(node, "target", context), context + " target");
  if (target == "torch.ops.higher_order.wrap_with_autocast") {
    inlineAutocastRegion(node, name.empty() ? "wrap_with_autocast_" + std::to_string(index) : name, context);
    return;
  }
  std::optional<OpKey> op = OpKey::parse(target);
  if (!op)
    throw Error(context + ": target '" + clipped(target) + "' is not an operator name");

  std::vector<NamedArg> args;
  for (const Json &input : asArray(field(node, "inputs", context), context + " inputs")) {
    const std::string &arg_name = asString(field(input, "name", context + " input"), context + " input name");
    const std::string arg_context = context + " argument " + quote(arg_name);
    args.push_back(NamedArg{arg_name, arguments_.read(field(input, "arg", arg_context), arg_context)});
  }

  // Output types. Tensor lists are flattened into consecutive outputs; an undefined tensor
  // output still gets a value so output positions keep matching the schema's returns.
  std::vector<TensorTypeSpec> specs;
  std::vector<std::optional<ValueTypes::Scalar>> scalars;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string out_context = context + " output " + std::to_string(i);
    auto [variant, payload] = unionVariant(outputs[i], out_context);
    if (variant == "as_tensor") {
      specs.push_back(nodeTypes().tensor(asString(field(*payload, "name", out_context), out_context), out_context));
      scalars.emplace_back();
    } else if (variant == "as_tensors") {
      for (const Json &t : asArray(*payload, out_context)) {
        specs.push_back(nodeTypes().tensor(asString(field(t, "name", out_context), out_context), out_context));
        scalars.emplace_back();
      }
    } else if (variant == "as_sym_int" || variant == "as_sym_float" || variant == "as_sym_bool") {
      const ValueKind kind = variant == "as_sym_int"     ? ValueKind::SymInt
                             : variant == "as_sym_float" ? ValueKind::SymFloat
                                                         : ValueKind::SymBool;
      const std::string &value_name = asString(field(*payload, "as_name", out_context), out_context);
      auto scalar = nodeTypes().scalar(value_name, kind, out_context);
      specs.push_back(scalar.type);
      scalars.emplace_back(std::move(scalar));
    } else if (variant == "as_none") {
      TensorTypeSpec unused;
      unused.name = (name.empty() ? "node_" + std::to_string(index) : name) + "_unused_" + std::to_string(i);
      specs.push_back(std::move(unused));
      scalars.emplace_back();
    } else {
      throw Error(out_context + ": unsupported output variant '" + variant + "'");
    }
  }

  if (!schemas_.find(*op)) {
    TICO_DEBUG << archive_.path() << ": " << context << " uses " << op->str()
               << ", which has no schema; imported with its arguments as written";
  }

  std::vector<std::string> names;
  for (auto &s : specs) {
    names.push_back(s.name);
    if (!inline_prefix_.empty())
      s.name = inline_prefix_ + s.name;
  }
  if (!inline_prefix_.empty() && !name.empty())
    name = inline_prefix_ + name;
  Node *created = nullptr;
  try {
    created = graph_->createNode(*op, std::move(args), std::move(specs), nullptr, name);
  } catch (const Error &e) {
    throw Error(context + ": " + e.what());
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    Value *out = created->output(i);
    define(out, names[i], context);
    if (scalars[i])
      out->setSym(scalars[i]->expr, scalars[i]->hint);
  }
  if (const Json *metadata = optionalField(node, "metadata")) {
    asObject(*metadata, context + " metadata");
    for (auto it = metadata->begin(); it != metadata->end(); ++it)
      if (it.value().is_string())
        created->meta()[it.key()] = it.value().get<std::string>();
  }
}

// An autocast region (torch.autocast(..., enabled=False) in the model: timm's EfficientViT runs its
// linear attention so) is recorded as a higher-order op whose subgraph holds the region's
// operators: wrap_with_autocast(device_type, dtype, enabled, cache_enabled, subgraph, *operands).
// Disabled autocast changes nothing in a program that is not itself under autocast (the
// exporter wrote every cast explicitly), so the subgraph's nodes join the graph in place: its
// inputs are the operands, the op's outputs its outputs. Its JSON names are a scope of their
// own (the exporter reuses the outer names), so they are read in a fresh value map and the
// graph names them after the op. An enabled region would change the dtypes its operators
// compute in: refused with the reason.
void GraphBuilder::inlineAutocastRegion(const Json &node, const std::string &name, const std::string &context) {
  const Json &inputs = asArray(field(node, "inputs", context), context + " inputs");
  if (inputs.size() < 5)
    throw Error(context + ": wrap_with_autocast has " + std::to_string(inputs.size()) +
                " arguments; expected device_type, dtype, enabled, cache_enabled, the subgraph and its operands");
  auto argument = [&](std::size_t i) -> std::pair<std::string, const Json *> {
    return unionVariant(field(inputs[i], "arg", context + " argument " + std::to_string(i)),
                        context + " argument " + std::to_string(i));
  };
  const auto [enabled_variant, enabled] = argument(2);
  if (enabled_variant != "as_bool" || !enabled->is_boolean())
    throw Error(context + ": wrap_with_autocast's 'enabled' argument is not a bool");
  if (enabled->get<bool>())
    throw Error(context + ": an enabled autocast region (torch.autocast(..., enabled=True)) computes its operators in "
                "another dtype; tico converts the program's own dtypes: export the model without autocast, or "
                "in the dtype it should run in");
  const auto [graph_variant, graph_argument] = argument(4);
  if (graph_variant != "as_graph")
    throw Error(context + ": wrap_with_autocast's fifth argument is not a subgraph (" + graph_variant + ")");
  const Json &subgraph = asObject(field(*graph_argument, "graph", context + " subgraph"), context + " subgraph");
  const Json &sub_inputs = asArray(field(subgraph, "inputs", context + " subgraph"), context + " subgraph inputs");
  const Json &sub_outputs = asArray(field(subgraph, "outputs", context + " subgraph"), context + " subgraph outputs");
  const Json &outputs = asArray(field(node, "outputs", context), context + " outputs");
  if (sub_inputs.size() != inputs.size() - 5)
    throw Error(context + ": the subgraph takes " + std::to_string(sub_inputs.size()) + " inputs but " +
                std::to_string(inputs.size() - 5) + " operands are given");

  auto tensorName = [&](const Json &arg, const std::string &where) {
    auto [variant, payload] = unionVariant(arg, where);
    if (variant != "as_tensor")
      throw Error(where + ": only tensor operands and results of an autocast region are supported (" + variant + ")");
    return asString(field(*payload, "name", where), where);
  };
  ValueMap scope;
  for (std::size_t i = 0; i < sub_inputs.size(); ++i) {
    const std::string where = context + " operand " + std::to_string(i);
    const std::string outer = tensorName(field(inputs[5 + i], "arg", where), where);
    auto found = values_.find(outer);
    if (found == values_.end())
      throw Error(where + ": value '" + clipped(outer) + "' is not defined");
    scope.emplace(tensorName(sub_inputs[i], context + " subgraph input " + std::to_string(i)), found->second);
  }

  // The subgraph's nodes, in their own name scope and with their own tensor types.
  std::swap(scope, values_);
  scoped_types_.push_back(std::make_unique<ValueTypes>(subgraph, graph_->symbols()));
  const std::string outer_prefix = inline_prefix_;
  std::vector<Value *> results;
  try {
    inline_prefix_ = outer_prefix + name + "_";
    const Json &nodes = asArray(field(subgraph, "nodes", context + " subgraph"), context + " subgraph nodes");
    for (std::size_t i = 0; i < nodes.size(); ++i)
      readNode(asObject(nodes[i], context + " subgraph node " + std::to_string(i)), i);
    for (std::size_t i = 0; i < sub_outputs.size(); ++i) {
      const std::string where = context + " subgraph output " + std::to_string(i);
      const std::string inner = tensorName(sub_outputs[i], where);
      auto found = values_.find(inner);
      if (found == values_.end())
        throw Error(where + ": value '" + clipped(inner) + "' is not defined");
      results.push_back(found->second);
    }
  } catch (...) {
    std::swap(scope, values_);
    scoped_types_.pop_back();
    inline_prefix_ = outer_prefix;
    throw;
  }
  std::swap(scope, values_);
  scoped_types_.pop_back();
  inline_prefix_ = outer_prefix;

  // The op's results are the subgraph's (as_tensors lists flatten).
  std::vector<std::string> names;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string where = context + " output " + std::to_string(i);
    auto [variant, payload] = unionVariant(outputs[i], where);
    if (variant == "as_tensor") {
      names.push_back(asString(field(*payload, "name", where), where));
    } else if (variant == "as_tensors") {
      for (const Json &t : asArray(*payload, where))
        names.push_back(asString(field(t, "name", where), where));
    } else {
      throw Error(where + ": unsupported output variant '" + variant + "' of an autocast region");
    }
  }
  if (names.size() != results.size())
    throw Error(context + ": the autocast region returns " + std::to_string(results.size()) + " values for " +
                std::to_string(names.size()) + " outputs");
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (values_.count(names[i]))
      throw Error(context + ": value " + quote(names[i]) + " is defined twice");
    values_.emplace(names[i], results[i]);
  }
}

} // namespace tico::pt2
