#include "tico/pass/options.h"

#include "tico/support/error.h"

#include <charconv>
#include <cmath>
#include <optional>

namespace tico {

const char *optionTypeName(OptionType type) {
  switch (type) {
  case OptionType::Bool:
    return "bool";
  case OptionType::Int:
    return "int";
  case OptionType::Float:
    return "float";
  case OptionType::String:
    return "string";
  case OptionType::IntList:
    return "int list";
  case OptionType::StringList:
    return "string list";
  }
  return "unknown";
}

namespace {

// The variant index of each alternative, in declaration order of OptionValue.
OptionType typeOf(const OptionValue &value) {
  switch (value.index()) {
  case 0:
    return OptionType::Bool;
  case 1:
    return OptionType::Int;
  case 2:
    return OptionType::Float;
  case 3:
    return OptionType::String;
  case 4:
    return OptionType::IntList;
  default:
    return OptionType::StringList;
  }
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

// Shortest text that reads back as the same double, always recognisable as a float (a bare
// "1" would come back from a manifest as an int).
std::string floatString(double value) {
  if (std::isnan(value))
    return ".nan";
  if (std::isinf(value))
    return value > 0 ? ".inf" : "-.inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".eE") == std::string::npos)
    text += ".0";
  return text;
}

// Wraps a bare pass name as "pass 'x'"; callers that already name the kind ("quantizer 'y'")
// pass the complete phrase.
std::string ownerPhrase(const std::string &owner) {
  if (owner.find('\'') != std::string::npos)
    return owner;
  return "pass '" + owner + "'";
}

std::string validOptionsList(const std::vector<OptionSpec> &specs) {
  if (specs.empty())
    return "it takes no options";
  std::string out = "valid: ";
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += specs[i].name + " (" + optionTypeName(specs[i].type) + ", default " +
           optionValueString(specs[i].default_value) + ")";
  }
  return out;
}

bool isEmptyList(const OptionValue &value) {
  if (const auto *ints = std::get_if<std::vector<int64_t>>(&value))
    return ints->empty();
  if (const auto *strings = std::get_if<std::vector<std::string>>(&value))
    return strings->empty();
  return false;
}

// Converts `given` to the declared type when that loses nothing; nullopt when it is wrong.
std::optional<OptionValue> coerce(const OptionValue &given, OptionType declared) {
  OptionType actual = typeOf(given);
  if (actual == declared)
    return given;
  if (declared == OptionType::Float && actual == OptionType::Int)
    return OptionValue(static_cast<double>(std::get<int64_t>(given)));
  // "[]" carries no element type; it is a valid value of either list type.
  if (isEmptyList(given)) {
    if (declared == OptionType::IntList)
      return OptionValue(std::vector<int64_t>{});
    if (declared == OptionType::StringList)
      return OptionValue(std::vector<std::string>{});
  }
  return std::nullopt;
}

const OptionValue &lookup(const std::map<std::string, OptionValue> &values, const std::string &name,
                          OptionType wanted) {
  auto it = values.find(name);
  if (it == values.end())
    throw Error("option '" + name + "' is not declared");
  if (typeOf(it->second) != wanted)
    throw Error("option '" + name + "' is " + optionTypeName(typeOf(it->second)) + ", not " +
                optionTypeName(wanted));
  return it->second;
}

} // namespace

std::string optionValueString(const OptionValue &value) {
  switch (typeOf(value)) {
  case OptionType::Bool:
    return std::get<bool>(value) ? "true" : "false";
  case OptionType::Int:
    return std::to_string(std::get<int64_t>(value));
  case OptionType::Float:
    return floatString(std::get<double>(value));
  case OptionType::String:
    return quoted(std::get<std::string>(value));
  case OptionType::IntList: {
    std::string out = "[";
    for (const auto &element : std::get<std::vector<int64_t>>(value))
      out += (out.size() > 1 ? ", " : "") + std::to_string(element);
    return out + "]";
  }
  case OptionType::StringList: {
    std::string out = "[";
    for (const auto &element : std::get<std::vector<std::string>>(value))
      out += (out.size() > 1 ? ", " : "") + quoted(element);
    return out + "]";
  }
  }
  return {};
}

bool Options::getBool(const std::string &name) const {
  return std::get<bool>(lookup(values_, name, OptionType::Bool));
}

int64_t Options::getInt(const std::string &name) const {
  return std::get<int64_t>(lookup(values_, name, OptionType::Int));
}

double Options::getFloat(const std::string &name) const {
  // Options built by hand (not through resolve) may still hold an int for a float option.
  auto it = values_.find(name);
  if (it != values_.end())
    if (const auto *integer = std::get_if<int64_t>(&it->second))
      return static_cast<double>(*integer);
  return std::get<double>(lookup(values_, name, OptionType::Float));
}

const std::string &Options::getString(const std::string &name) const {
  return std::get<std::string>(lookup(values_, name, OptionType::String));
}

const std::vector<int64_t> &Options::getIntList(const std::string &name) const {
  return std::get<std::vector<int64_t>>(lookup(values_, name, OptionType::IntList));
}

const std::vector<std::string> &Options::getStringList(const std::string &name) const {
  return std::get<std::vector<std::string>>(lookup(values_, name, OptionType::StringList));
}

Options Options::resolve(const std::string &owner, const std::vector<OptionSpec> &specs,
                         const std::map<std::string, OptionValue> &given) {
  std::map<std::string, OptionValue> values;
  for (const auto &[name, value] : given) {
    const OptionSpec *spec = nullptr;
    for (const auto &candidate : specs)
      if (candidate.name == name)
        spec = &candidate;
    if (spec == nullptr)
      throw Error(ownerPhrase(owner) + " has no option '" + name + "'; " + validOptionsList(specs));
    std::optional<OptionValue> converted = coerce(value, spec->type);
    if (!converted)
      throw Error(ownerPhrase(owner) + " option '" + name + "' must be " +
                  optionTypeName(spec->type) + ", got " + optionTypeName(typeOf(value)) + " " +
                  optionValueString(value) + "; " + validOptionsList(specs));
    values.emplace(name, std::move(*converted));
  }
  for (const auto &spec : specs)
    if (!values.count(spec.name))
      values.emplace(spec.name, coerce(spec.default_value, spec.type).value_or(spec.default_value));
  return Options(std::move(values));
}

} // namespace tico
