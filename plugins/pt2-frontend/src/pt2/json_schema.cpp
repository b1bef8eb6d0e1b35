#include "pt2/json_schema.h"

#include "tico/support/error.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>

namespace tico::pt2 {

Json parseJson(std::string_view text, const std::string &what, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    throw Error(what + " holds " + std::to_string(text.size()) + " bytes of JSON; the limit is " +
                std::to_string(max_bytes >> 20) + " MiB (" + std::to_string(max_bytes) + " bytes)");
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception &e) {
    throw Error(what + " is not valid JSON (" + e.what() + ")");
  }
}

namespace {
const char *typeName(const Json &v) { return v.type_name(); }
} // namespace

const Json &field(const Json &obj, std::string_view key, const std::string &context) {
  if (!obj.is_object())
    throw Error(context + ": expected an object, found " + typeName(obj));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    throw Error(context + ": missing field '" + std::string(key) + "'");
  return *it;
}

const Json *optionalField(const Json &obj, std::string_view key) {
  if (!obj.is_object())
    return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

int64_t asInt(const Json &value, const std::string &context) {
  if (value.is_number_integer())
    return value.get<int64_t>();
  // Large unsigned values do not fit int64; every schema integer does.
  throw Error(context + ": expected an integer, found " + (value.is_number() ? value.dump() : typeName(value)));
}

bool asBool(const Json &value, const std::string &context) {
  if (!value.is_boolean())
    throw Error(context + ": expected a boolean, found " + typeName(value));
  return value.get<bool>();
}

double asFloat(const Json &value, const std::string &context) {
  if (value.is_number())
    return value.get<double>();
  if (value.is_string()) {
    const auto &s = value.get_ref<const std::string &>();
    if (s == "Infinity")
      return std::numeric_limits<double>::infinity();
    if (s == "-Infinity")
      return -std::numeric_limits<double>::infinity();
    if (s == "NaN")
      return std::numeric_limits<double>::quiet_NaN();
    throw Error(context + ": expected a float, found the string '" + s + "'");
  }
  throw Error(context + ": expected a float, found " + typeName(value));
}

const std::string &asString(const Json &value, const std::string &context) {
  if (!value.is_string())
    throw Error(context + ": expected a string, found " + typeName(value));
  return value.get_ref<const std::string &>();
}

const Json &asArray(const Json &value, const std::string &context) {
  if (!value.is_array())
    throw Error(context + ": expected a list, found " + typeName(value));
  return value;
}

const Json &asObject(const Json &value, const std::string &context) {
  if (!value.is_object())
    throw Error(context + ": expected an object, found " + typeName(value));
  return value;
}

std::pair<std::string, const Json *> unionVariant(const Json &value, const std::string &context) {
  if (!value.is_object() || value.size() != 1)
    throw Error(context + ": expected a union (an object with one member), found " +
                (value.is_object() ? std::to_string(value.size()) + " members" : std::string(typeName(value))));
  auto it = value.begin();
  return {it.key(), &it.value()};
}

namespace {

// torch/_export/serde/schema.py ScalarType, by member name. Members without a DType are
// valid schema codes that tico has no element type for.
enum class SchemaScalarType : int {
  UNKNOWN = 0,
  BYTE = 1,
  CHAR = 2,
  SHORT = 3,
  INT = 4,
  LONG = 5,
  HALF = 6,
  FLOAT = 7,
  DOUBLE = 8,
  COMPLEXHALF = 9,
  COMPLEXFLOAT = 10,
  COMPLEXDOUBLE = 11,
  BOOL = 12,
  BFLOAT16 = 13,
  UINT16 = 28,
  FLOAT8E4M3FN = 29,
  FLOAT8E5M2 = 30,
  FLOAT8E4M3FNUZ = 31,
  FLOAT8E5M2FNUZ = 32,
  FLOAT8E8M0FNU = 33,
  UINT32 = 34,
  UINT64 = 35,
};

struct ScalarTypeName {
  SchemaScalarType code;
  const char *name;
  std::optional<DType> dtype;
};

constexpr std::array<ScalarTypeName, 22> kScalarTypes = {{
    {SchemaScalarType::UNKNOWN, "UNKNOWN", std::nullopt},
    {SchemaScalarType::BYTE, "BYTE", DType::UInt8},
    {SchemaScalarType::CHAR, "CHAR", DType::Int8},
    {SchemaScalarType::SHORT, "SHORT", DType::Int16},
    {SchemaScalarType::INT, "INT", DType::Int32},
    {SchemaScalarType::LONG, "LONG", DType::Int64},
    {SchemaScalarType::HALF, "HALF", DType::Float16},
    {SchemaScalarType::FLOAT, "FLOAT", DType::Float32},
    {SchemaScalarType::DOUBLE, "DOUBLE", DType::Float64},
    {SchemaScalarType::COMPLEXHALF, "COMPLEXHALF", std::nullopt},
    {SchemaScalarType::COMPLEXFLOAT, "COMPLEXFLOAT", DType::Complex64},
    {SchemaScalarType::COMPLEXDOUBLE, "COMPLEXDOUBLE", DType::Complex128},
    {SchemaScalarType::BOOL, "BOOL", DType::Bool},
    {SchemaScalarType::BFLOAT16, "BFLOAT16", DType::BFloat16},
    {SchemaScalarType::UINT16, "UINT16", DType::UInt16},
    {SchemaScalarType::FLOAT8E4M3FN, "FLOAT8E4M3FN", std::nullopt},
    {SchemaScalarType::FLOAT8E5M2, "FLOAT8E5M2", std::nullopt},
    {SchemaScalarType::FLOAT8E4M3FNUZ, "FLOAT8E4M3FNUZ", std::nullopt},
    {SchemaScalarType::FLOAT8E5M2FNUZ, "FLOAT8E5M2FNUZ", std::nullopt},
    {SchemaScalarType::FLOAT8E8M0FNU, "FLOAT8E8M0FNU", std::nullopt},
    {SchemaScalarType::UINT32, "UINT32", DType::UInt32},
    {SchemaScalarType::UINT64, "UINT64", DType::UInt64},
}};

} // namespace

DType scalarTypeFromCode(int64_t code, const std::string &context) {
  for (const auto &entry : kScalarTypes) {
    if (static_cast<int64_t>(entry.code) != code)
      continue;
    if (!entry.dtype)
      throw Error(context + ": dtype " + entry.name + " (schema code " + std::to_string(code) +
                  ") is not supported by tico");
    return *entry.dtype;
  }
  throw Error(context + ": unknown dtype code " + std::to_string(code) + " (export schema " +
              std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinorWritten) +
              " defines 0-13 and 28-35)");
}

Layout layoutFromCode(int64_t code, const std::string &context) {
  // schema.py Layout; tico::Layout keeps the schema's numbers but is matched by name here.
  switch (code) {
  case 0: return Layout::Unknown;
  case 1: return Layout::SparseCoo;
  case 2: return Layout::SparseCsr;
  case 3: return Layout::SparseCsc;
  case 4: return Layout::SparseBsr;
  case 5: return Layout::SparseBsc;
  case 6: return Layout::Mkldnn; // schema name _mkldnn
  case 7: return Layout::Strided;
  default: break;
  }
  throw Error(context + ": unknown layout code " + std::to_string(code));
}

MemoryFormat memoryFormatFromCode(int64_t code, const std::string &context) {
  switch (code) {
  case 0: return MemoryFormat::Unknown;
  case 1: return MemoryFormat::Contiguous;     // ContiguousFormat
  case 2: return MemoryFormat::ChannelsLast;
  case 3: return MemoryFormat::ChannelsLast3d;
  case 4: return MemoryFormat::Preserve;       // PreserveFormat
  default: break;
  }
  throw Error(context + ": unknown memory format code " + std::to_string(code));
}

int64_t concreteSymInt(const Json &value, const std::string &context) {
  auto [variant, payload] = unionVariant(value, context);
  if (variant == "as_int")
    return asInt(*payload, context);
  if (variant == "as_expr")
    throw Error(context + ": expected a concrete integer, found the symbolic expression " +
                (payload->is_object() && payload->contains("expr_str") ? payload->at("expr_str").dump() : payload->dump()));
  throw Error(context + ": unknown SymInt variant '" + variant + "'");
}

std::vector<int64_t> concreteSymInts(const Json &list, const std::string &context) {
  std::vector<int64_t> out;
  for (const Json &item : asArray(list, context))
    out.push_back(concreteSymInt(item, context));
  return out;
}

} // namespace tico::pt2
