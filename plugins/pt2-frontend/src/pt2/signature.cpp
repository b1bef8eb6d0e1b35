// The graph signature: which graph inputs are user inputs, parameters, buffers, constants,
// and what the outputs mean (user outputs, mutations).
#include "pt2/graph_builder.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"

namespace tico::pt2 {
namespace {

std::string quote(const std::string &s) { return "'" + clipped(s) + "'"; }

// A TensorArgument {"name": ...} as used by the signature's parameter/buffer/... specs.
const std::string &tensorArgName(const Json &spec, const std::string &context) {
  return asString(field(field(spec, "arg", context), "name", context + " arg"), context + " arg name");
}

} // namespace

// ---- signature inputs ------------------------------------------------------------------------

void GraphBuilder::readInputs(const Json &input_specs) {
  for (std::size_t i = 0; i < input_specs.size(); ++i) {
    const std::string context = "input spec " + std::to_string(i);
    auto [kind, spec] = unionVariant(input_specs[i], context);
    readInput(kind, asObject(*spec, context), i);
  }
}

void GraphBuilder::readInput(const std::string &kind, const Json &spec, std::size_t index) {
  const std::string context = "input spec " + std::to_string(index) + " (" + kind + ")";
  if (kind == "user_input") {
    auto [variant, payload] = unionVariant(field(spec, "arg", context), context + " arg");
    if (variant == "as_tensor") {
      const std::string &name = asString(field(*payload, "name", context), context + " name");
      TensorTypeSpec type = types_->tensor(name, context);
      define(graph_->addInput(InputKind::User, name, type.dtype, std::move(type.shape)), name, context);
      return;
    }
    const ValueKind sym_kind = variant == "as_sym_int"     ? ValueKind::SymInt
                               : variant == "as_sym_float" ? ValueKind::SymFloat
                                                           : ValueKind::SymBool;
    if (variant == "as_sym_int" || variant == "as_sym_float" || variant == "as_sym_bool") {
      if (const Json *name_json = optionalField(*payload, "as_name")) {
        const std::string &name = asString(*name_json, context + " as_name");
        auto scalar = types_->scalar(name, sym_kind, context);
        define(graph_->addSymInput(name, sym_kind, scalar.expr, scalar.hint), name, context);
        return;
      }
    }
    // A non-tensor user input the exporter specialised (older writers); keep its value.
    Argument value = arguments_.read(field(spec, "arg", context), context);
    if (!value.referencedValues().empty())
      throw Error(context + ": unsupported user input " + field(spec, "arg", context).dump());
    graph_->addConstantInput("input_" + std::to_string(index), std::move(value));
    return;
  }
  if (kind == "parameter") {
    addConstantData(InputKind::Parameter, spec, "parameter_name", context);
    return;
  }
  if (kind == "buffer") {
    addConstantData(InputKind::Buffer, spec, "buffer_name", context);
    return;
  }
  if (kind == "tensor_constant") {
    addConstantData(InputKind::Constant, spec, "tensor_constant_name", context);
    return;
  }
  if (kind == "constant_input") {
    const std::string &name = asString(field(spec, "name", context), context + " name");
    auto [variant, payload] = unionVariant(field(spec, "value", context), context + " value");
    const std::string where = context + " " + quote(name);
    Argument value;
    if (variant == "as_none")
      value = Argument::none();
    else if (variant == "as_int")
      value = Argument::integer(asInt(*payload, where));
    else if (variant == "as_float")
      value = Argument::real(asFloat(*payload, where));
    else if (variant == "as_string")
      value = Argument::string(asString(*payload, where));
    else if (variant == "as_bool")
      value = Argument::boolean(asBool(*payload, where));
    else
      throw Error(where + ": unknown constant value variant '" + variant + "'");
    graph_->addConstantInput(name, std::move(value));
    return;
  }
  if (kind == "custom_obj") {
    const Json *fqn = optionalField(spec, "custom_obj_name");
    throw Error(context + ": the program takes a TorchBind custom object" +
                (fqn && fqn->is_string() ? " (" + quote(fqn->get<std::string>()) + ")" : std::string()) +
                "; custom objects are not supported");
  }
  if (kind == "token")
    throw Error(context + ": the program threads an effect token (ops with side effects); effect tokens are not supported");
  throw Error(context + ": unknown input spec kind '" + kind + "'");
}

Value *GraphBuilder::addConstantData(InputKind kind, const Json &spec, const char *fqn_field, const std::string &context) {
  const std::string &name = tensorArgName(spec, context);
  const std::string &fqn = asString(field(spec, fqn_field, context), context + " " + fqn_field);
  const char *noun = kind == InputKind::Parameter ? "parameter" : kind == InputKind::Buffer ? "buffer" : "tensor constant";
  const std::string what = std::string(noun) + " " + quote(fqn);

  // Parameters and persistent buffers are in the state dict (data/weights); non-persistent
  // buffers and lifted tensor constants are in data/constants.
  PayloadStore *store = &*weights_;
  bool persistent = true;
  if (kind == InputKind::Constant) {
    store = &*constants_;
  } else if (kind == InputKind::Buffer) {
    const Json *flag = optionalField(spec, "persistent");
    persistent = flag ? asBool(*flag, context + " persistent") : weights_->contains(fqn);
    if (!persistent)
      store = &*constants_;
  }
  std::shared_ptr<const TensorData> data = store->tensor(fqn, what);

  TensorTypeSpec type = types_->tensor(name, context);
  if (data->dtype != type.dtype || staticShape(data->sizes) != type.shape)
    throw Error(what + ": the saved tensor is " + std::string(dtypeName(data->dtype)) +
                shapeString(staticShape(data->sizes)) + " but the graph declares " + quote(name) + " as " +
                std::string(dtypeName(type.dtype)) + shapeString(type.shape));
  Value *value = graph_->addInput(kind, name, type.dtype, std::move(type.shape), fqn, std::move(data), persistent);
  define(value, name, context);
  return value;
}

// ---- signature outputs -----------------------------------------------------------------------

void GraphBuilder::readOutputs(const Json &output_specs) {
  for (std::size_t i = 0; i < output_specs.size(); ++i) {
    const std::string context0 = "output spec " + std::to_string(i);
    auto [kind, spec] = unionVariant(output_specs[i], context0);
    const std::string context = context0 + " (" + kind + ")";
    GraphOutput out;
    if (kind == "user_output") {
      out.kind = OutputKind::User;
      out.value = arguments_.read(field(*spec, "arg", context), context);
    } else if (kind == "buffer_mutation" || kind == "parameter_mutation" || kind == "user_input_mutation") {
      const char *target_field = kind == "buffer_mutation"      ? "buffer_name"
                                 : kind == "parameter_mutation" ? "parameter_name"
                                                                : "user_input_name";
      out.kind = kind == "buffer_mutation"      ? OutputKind::BufferMutation
                 : kind == "parameter_mutation" ? OutputKind::ParameterMutation
                                                : OutputKind::UserInputMutation;
      out.value = Argument::value(arguments_.tensor(field(*spec, "arg", context), context));
      out.target = asString(field(*spec, target_field, context), context + " " + target_field);
    } else if (kind == "loss_output" || kind == "gradient_to_parameter" || kind == "gradient_to_user_input") {
      throw Error(context + ": training (joint forward-backward) programs are not supported");
    } else if (kind == "token") {
      throw Error(context + ": the program returns an effect token (ops with side effects); effect tokens are not supported");
    } else {
      throw Error(context + ": unknown output spec kind '" + kind + "'");
    }
    graph_->addOutput(std::move(out));
  }
}

} // namespace tico::pt2
