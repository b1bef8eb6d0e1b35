#include "pt2/arguments.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <array>

namespace tico::pt2 {
namespace {

// Variants export schema 8.20 defines that have no tico equivalent, with what they carry.
struct Unsupported {
  const char *variant;
  const char *meaning;
};
constexpr std::array<Unsupported, 8> kUnsupported = {{
    {"as_graph", "a higher-order op subgraph"},
    {"as_custom_obj", "a TorchBind object"},
    {"as_operator", "an operator passed as an argument"},
    {"as_complex", "a complex number"},
    {"as_int_lists", "a list of int lists"},
    {"as_float_lists", "a list of float lists"},
    {"as_string_to_argument", "a string-keyed dictionary"},
    {"as_nested_tensors", "nested tensor lists"},
}};

} // namespace

Value *ArgumentReader::value(const std::string &name, const std::string &context) const {
  auto it = values_.find(name);
  if (it == values_.end())
    throw Error(context + ": refers to '" + clipped(name) + "', which is not defined before this point");
  return it->second;
}

Value *ArgumentReader::tensor(const Json &tensor_argument, const std::string &context) const {
  return value(asString(field(tensor_argument, "name", context), context + " name"), context);
}

Argument ArgumentReader::symInt(const Json &arg, const std::string &context) const {
  // SymIntArgument: {"as_name": value} or {"as_int": constant}.
  auto [variant, payload] = unionVariant(arg, context);
  if (variant == "as_name")
    return Argument::value(value(asString(*payload, context), context));
  if (variant == "as_int")
    return Argument::integer(asInt(*payload, context));
  throw Error(context + ": unknown SymIntArgument variant '" + variant + "'");
}

Argument ArgumentReader::symInts(const Json &list, const std::string &context) const {
  std::vector<SymIntElem> elems;
  for (const Json &item : asArray(list, context)) {
    Argument one = symInt(item, context);
    elems.push_back(one.isValue() ? SymIntElem{0, one.asValue()} : SymIntElem{one.asInt(), nullptr});
  }
  return Argument::symInts(std::move(elems));
}

Argument ArgumentReader::symScalar(const Json &arg, const char *constant_variant, const std::string &context) const {
  // SymFloatArgument / SymBoolArgument: {"as_name": value} or a constant.
  auto [variant, payload] = unionVariant(arg, context);
  if (variant == "as_name")
    return Argument::value(value(asString(*payload, context), context));
  if (variant == constant_variant)
    return variant == "as_bool" ? Argument::boolean(asBool(*payload, context))
                                : Argument::real(asFloat(*payload, context));
  throw Error(context + ": unknown symbolic scalar variant '" + variant + "'");
}

Argument ArgumentReader::optionalTensors(const Json &list, const std::string &context) const {
  std::vector<Value *> values;
  for (const Json &item : asArray(list, context)) {
    auto [variant, payload] = unionVariant(item, context);
    if (variant == "as_tensor")
      values.push_back(tensor(*payload, context));
    else if (variant == "as_none")
      values.push_back(nullptr);
    else
      throw Error(context + ": unknown OptionalTensorArgument variant '" + variant + "'");
  }
  return Argument::optionalValues(std::move(values));
}

Argument ArgumentReader::read(const Json &arg, const std::string &context) const {
  auto [variant, v] = unionVariant(arg, context);
  const Json &p = *v;
  if (variant == "as_none")
    return Argument::none();
  if (variant == "as_tensor")
    return Argument::value(tensor(p, context));
  if (variant == "as_tensors") {
    std::vector<Value *> values;
    for (const Json &t : asArray(p, context))
      values.push_back(tensor(t, context));
    return Argument::values(std::move(values));
  }
  if (variant == "as_optional_tensor") {
    auto [inner, payload] = unionVariant(p, context);
    if (inner == "as_tensor")
      return Argument::value(tensor(*payload, context));
    if (inner == "as_none")
      return Argument::none();
    throw Error(context + ": unknown OptionalTensorArgument variant '" + inner + "'");
  }
  if (variant == "as_optional_tensors")
    return optionalTensors(p, context);
  if (variant == "as_int")
    return Argument::integer(asInt(p, context));
  if (variant == "as_ints") {
    std::vector<int64_t> out;
    for (const Json &i : asArray(p, context))
      out.push_back(asInt(i, context));
    return Argument::ints(std::move(out));
  }
  if (variant == "as_float")
    return Argument::real(asFloat(p, context));
  if (variant == "as_floats") {
    std::vector<double> out;
    for (const Json &f : asArray(p, context))
      out.push_back(asFloat(f, context));
    return Argument::reals(std::move(out));
  }
  if (variant == "as_bool")
    return Argument::boolean(asBool(p, context));
  if (variant == "as_bools") {
    std::vector<bool> out;
    for (const Json &b : asArray(p, context))
      out.push_back(asBool(b, context));
    return Argument::bools(std::move(out));
  }
  if (variant == "as_string")
    return Argument::string(asString(p, context));
  if (variant == "as_strings") {
    std::vector<std::string> out;
    for (const Json &s : asArray(p, context))
      out.push_back(asString(s, context));
    return Argument::strings(std::move(out));
  }
  if (variant == "as_sym_int")
    return symInt(p, context);
  if (variant == "as_sym_ints")
    return symInts(p, context);
  if (variant == "as_sym_float")
    return symScalar(p, "as_float", context);
  if (variant == "as_sym_bool")
    return symScalar(p, "as_bool", context);
  if (variant == "as_sym_floats" || variant == "as_sym_bools") {
    // The IR has no list of symbolic floats/bools; constant lists become plain lists.
    const bool floats = variant == "as_sym_floats";
    std::vector<double> reals;
    std::vector<bool> bools;
    for (const Json &item : asArray(p, context)) {
      Argument one = symScalar(item, floats ? "as_float" : "as_bool", context);
      if (one.isValue())
        throw Error(context + ": lists of symbolic " + (floats ? "floats" : "bools") + " are not supported");
      floats ? reals.push_back(one.asDouble()) : bools.push_back(one.asBool());
    }
    return floats ? Argument::reals(std::move(reals)) : Argument::bools(std::move(bools));
  }
  if (variant == "as_scalar_type")
    return Argument::scalarType(scalarTypeFromCode(asInt(p, context), context));
  if (variant == "as_layout")
    return Argument::layout(layoutFromCode(asInt(p, context), context));
  if (variant == "as_memory_format")
    return Argument::memoryFormat(memoryFormatFromCode(asInt(p, context), context));
  if (variant == "as_device") {
    Device d;
    d.type = asString(field(p, "type", context), context + " device type");
    if (const Json *index = optionalField(p, "index"))
      d.index = static_cast<int>(asInt(*index, context + " device index"));
    return Argument::device(std::move(d));
  }
  for (const auto &u : kUnsupported)
    if (variant == u.variant)
      throw Error(context + ": argument variant '" + variant + "' (" + u.meaning + ") is not supported");
  throw Error(context + ": unknown argument variant '" + variant + "' (not in export schema " +
              std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinorWritten) + ")");
}

} // namespace tico::pt2
