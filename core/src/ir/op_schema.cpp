#include "tico/ir/op_schema.h"

#include "tico/support/error.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <mutex>

namespace tico {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Splits at top-level commas (outside (), [] and quotes).
std::vector<std::string_view> splitTopLevel(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  char quote = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  auto last = trim(s.substr(start));
  if (!last.empty())
    out.push_back(last);
  return out;
}

// Index of the ')' matching the '(' at `open`.
std::size_t matchParen(std::string_view s, std::size_t open) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(')
      ++depth;
    else if (c == ')' && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

struct ParsedType {
  ArgType type = ArgType::Other;
  bool optional = false;
  bool is_symbolic = false;
  bool is_mutable = false;
  std::string alias_set;
  int fixed_length = 0;
};

ArgType baseType(std::string_view base, bool list, bool element_optional) {
  if (base == "Tensor")
    return list ? (element_optional ? ArgType::OptionalTensorList : ArgType::TensorList) : ArgType::Tensor;
  if (base == "int" || base == "SymInt")
    return list ? ArgType::IntList : ArgType::Int;
  if (base == "float" || base == "SymFloat")
    return list ? ArgType::FloatList : ArgType::Float;
  if (base == "bool" || base == "SymBool")
    return list ? ArgType::BoolList : ArgType::Bool;
  if (base == "Scalar")
    return list ? ArgType::ScalarList : ArgType::Scalar;
  if (base == "str")
    return list ? ArgType::StringList : ArgType::String;
  if (list)
    return ArgType::Other;
  if (base == "ScalarType")
    return ArgType::ScalarType;
  if (base == "Layout")
    return ArgType::Layout;
  if (base == "Device")
    return ArgType::Device;
  if (base == "MemoryFormat")
    return ArgType::MemoryFormat;
  if (base == "Generator")
    return ArgType::Generator;
  return ArgType::Other;
}

ParsedType parseType(std::string_view text) {
  ParsedType out;
  std::string t;
  // Drop alias annotations "(a)", "(a!)", "(a -> *)", remembering mutation.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') {
      auto close = text.find(')', i);
      auto annotation = text.substr(i, close - i);
      if (annotation.find('!') != std::string_view::npos)
        out.is_mutable = true;
      // "(a)", "(a!)", "(a -> *)": the set is the identifier right after '('.
      for (std::size_t k = 1; k < annotation.size() && std::isalnum(static_cast<unsigned char>(annotation[k])); ++k)
        out.alias_set += annotation[k];
      i = close;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(text[i])))
      t += text[i];
  }
  if (!t.empty() && t.back() == '?') {
    out.optional = true;
    t.pop_back();
  }
  bool list = false;
  if (!t.empty() && t.back() == ']') {
    auto open = t.rfind('[');
    std::string n = t.substr(open + 1, t.size() - open - 2);
    if (!n.empty())
      out.fixed_length = std::stoi(n);
    list = true;
    t = t.substr(0, open);
  }
  bool element_optional = false;
  if (!t.empty() && t.back() == '?') {
    element_optional = true;
    t.pop_back();
  }
  out.is_symbolic = t.rfind("Sym", 0) == 0;
  out.type = baseType(t, list, element_optional);
  return out;
}

// Reads the type text of "Type name=default": the type ends at the first top-level space.
std::pair<std::string_view, std::string_view> splitTypeAndRest(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (std::isspace(static_cast<unsigned char>(c)) && depth == 0)
      return {s.substr(0, i), trim(s.substr(i))};
  }
  return {s, {}};
}

std::optional<DType> dtypeFromSchemaName(std::string_view name) {
  static const std::pair<std::string_view, DType> table[] = {
      {"float", DType::Float32}, {"double", DType::Float64}, {"half", DType::Float16},
      {"long", DType::Int64},    {"int", DType::Int32},      {"short", DType::Int16},
      {"bool", DType::Bool},     {"uint8", DType::UInt8},    {"int8", DType::Int8},
  };
  for (auto &[n, d] : table)
    if (n == name)
      return d;
  return std::nullopt;
}

// c10::ScalarType numbering (declaration order in c10), matched by name.
std::optional<DType> dtypeFromC10Code(int64_t code) {
  switch (code) {
  case 0:
    return DType::UInt8;
  case 1:
    return DType::Int8;
  case 2:
    return DType::Int16;
  case 3:
    return DType::Int32;
  case 4:
    return DType::Int64;
  case 5:
    return DType::Float16;
  case 6:
    return DType::Float32;
  case 7:
    return DType::Float64;
  case 9:
    return DType::Complex64;
  case 10:
    return DType::Complex128;
  case 11:
    return DType::Bool;
  case 15:
    return DType::BFloat16;
  case 27:
    return DType::UInt16;
  case 28:
    return DType::UInt32;
  case 29:
    return DType::UInt64;
  default:
    return std::nullopt;
  }
}

int64_t parseInt(std::string_view s) {
  s = trim(s);
  std::size_t pos = 0;
  std::string str(s);
  long long v = std::stoll(str, &pos);
  if (pos != str.size())
    throw Error("not an integer: '" + str + "'");
  return v;
}

double parseFloat(std::string_view s) {
  s = trim(s);
  if (s == "inf")
    return std::numeric_limits<double>::infinity();
  if (s == "-inf")
    return -std::numeric_limits<double>::infinity();
  if (s == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  std::string str(s);
  std::size_t pos = 0;
  double v = std::stod(str, &pos);
  if (pos != str.size())
    throw Error("not a number: '" + str + "'");
  return v;
}

std::vector<std::string_view> listItems(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']')
    return {s};
  return splitTopLevel(s.substr(1, s.size() - 2));
}

bool isIntText(std::string_view s) {
  s = trim(s);
  if (!s.empty() && (s[0] == '-' || s[0] == '+'))
    s.remove_prefix(1);
  if (s.empty())
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

} // namespace

// ---- SchemaArgument --------------------------------------------------------------------------

Argument SchemaArgument::defaultValue() const {
  if (!default_text)
    throw Error("argument '" + name + "' has no default");
  std::string_view d = trim(*default_text);
  if (d == "None")
    return Argument::none();
  try {
    switch (type) {
    case ArgType::Int:
      return Argument::integer(parseInt(d));
    case ArgType::IntList: {
      std::vector<int64_t> v;
      if (d.front() != '[') {
        // int[2] stride=1 means [1, 1].
        v.assign(std::max(fixed_length, 1), parseInt(d));
      } else {
        for (auto item : listItems(d))
          v.push_back(parseInt(item));
      }
      return Argument::ints(std::move(v));
    }
    case ArgType::Float:
      return Argument::real(parseFloat(d));
    case ArgType::FloatList: {
      std::vector<double> v;
      for (auto item : listItems(d))
        v.push_back(parseFloat(item));
      return Argument::reals(std::move(v));
    }
    case ArgType::Bool:
      return Argument::boolean(d == "True");
    case ArgType::BoolList: {
      std::vector<bool> v;
      for (auto item : listItems(d))
        v.push_back(trim(item) == "True");
      return Argument::bools(std::move(v));
    }
    case ArgType::Scalar:
      if (d == "True" || d == "False")
        return Argument::boolean(d == "True");
      if (isIntText(d))
        return Argument::integer(parseInt(d));
      return Argument::real(parseFloat(d));
    case ArgType::String:
      if (d.size() >= 2 && (d.front() == '"' || d.front() == '\''))
        return Argument::string(std::string(d.substr(1, d.size() - 2)));
      return Argument::string(std::string(d));
    case ArgType::ScalarType:
      if (auto dt = dtypeFromSchemaName(d))
        return Argument::scalarType(*dt);
      // Some defaults are written as c10::ScalarType numbers (e.g. "dtype=4").
      if (isIntText(d))
        if (auto dt = dtypeFromC10Code(parseInt(d)))
          return Argument::scalarType(*dt);
      break;
    case ArgType::MemoryFormat:
      // c10::MemoryFormat numbers appear as defaults too ("memory_format=0").
      if (d == "0")
        return Argument::memoryFormat(MemoryFormat::Contiguous);
      if (d == "1")
        return Argument::memoryFormat(MemoryFormat::Preserve);
      if (d == "2")
        return Argument::memoryFormat(MemoryFormat::ChannelsLast);
      if (d == "3")
        return Argument::memoryFormat(MemoryFormat::ChannelsLast3d);
      if (d == "contiguous_format")
        return Argument::memoryFormat(MemoryFormat::Contiguous);
      if (d == "preserve_format")
        return Argument::memoryFormat(MemoryFormat::Preserve);
      if (d == "channels_last")
        return Argument::memoryFormat(MemoryFormat::ChannelsLast);
      break;
    case ArgType::Layout:
      if (d == "strided")
        return Argument::layout(Layout::Strided);
      break;
    case ArgType::Device:
      return Argument::device(Device{std::string(d), -1});
    default:
      break;
    }
  } catch (const std::exception &e) {
    throw Error("cannot read default '" + std::string(d) + "' of argument '" + name + "': " + e.what());
  }
  throw Error("cannot represent default '" + std::string(d) + "' of argument '" + name + "' (" +
              type_text + ")");
}

bool SchemaArgument::accepts(const Argument &value) const {
  using K = Argument::Kind;
  K k = value.kind();
  if (k == K::None)
    return optional || type == ArgType::Other || type == ArgType::Generator;
  switch (type) {
  case ArgType::Tensor:
    // torch.export keeps Python numbers in Tensor slots (x + 2.5 is add.Tensor(x, 2.5));
    // they act as wrapped scalars for type promotion.
    return k == K::Value || k == K::Int || k == K::Float || k == K::Bool;
  case ArgType::TensorList:
    return k == K::ValueList;
  case ArgType::OptionalTensorList:
    return k == K::OptionalValueList || k == K::ValueList;
  case ArgType::Int:
    return k == K::Int || k == K::Value || k == K::Bool;
  case ArgType::IntList:
    return k == K::IntList || k == K::SymIntList || (fixed_length > 0 && k == K::Int);
  case ArgType::Float:
    return k == K::Float || k == K::Int || k == K::Value;
  case ArgType::FloatList:
    return k == K::FloatList || k == K::IntList;
  case ArgType::Bool:
    return k == K::Bool || k == K::Value;
  case ArgType::BoolList:
    return k == K::BoolList;
  case ArgType::Scalar:
    return k == K::Int || k == K::Float || k == K::Bool || k == K::Value;
  case ArgType::ScalarList:
    return k == K::IntList || k == K::FloatList;
  case ArgType::String:
    return k == K::String;
  case ArgType::StringList:
    return k == K::StringList;
  case ArgType::ScalarType:
    return k == K::ScalarType || k == K::Int;
  case ArgType::Layout:
    return k == K::Layout || k == K::Int;
  case ArgType::Device:
    return k == K::Device || k == K::String;
  case ArgType::MemoryFormat:
    return k == K::MemoryFormat || k == K::Int;
  case ArgType::Generator:
  case ArgType::Other:
    return true;
  }
  return true;
}

// ---- OpSchema ----------------------------------------------------------------------------------

OpSchema OpSchema::parse(std::string_view text) {
  auto fail = [&](const std::string &why) -> Error {
    return Error("malformed operator schema '" + std::string(text) + "': " + why);
  };
  auto open = text.find('(');
  if (open == std::string_view::npos)
    throw fail("missing '('");
  auto close = matchParen(text, open);
  if (close == std::string_view::npos)
    throw fail("unbalanced parentheses");
  OpSchema schema;
  auto key = OpKey::parse(trim(text.substr(0, open)));
  if (!key || trim(text.substr(0, open)).find("::") == std::string_view::npos)
    throw fail("bad operator name");
  schema.key = *key;

  bool kwarg_only = false;
  for (auto item : splitTopLevel(text.substr(open + 1, close - open - 1))) {
    if (item == "*") {
      kwarg_only = true;
      continue;
    }
    auto [type_text, rest] = splitTypeAndRest(item);
    if (rest.empty())
      throw fail("argument '" + std::string(item) + "' has no name");
    SchemaArgument arg;
    arg.type_text = std::string(type_text);
    auto eq = rest.find('=');
    arg.name = std::string(trim(rest.substr(0, eq)));
    if (eq != std::string_view::npos)
      arg.default_text = std::string(trim(rest.substr(eq + 1)));
    ParsedType pt = parseType(type_text);
    arg.type = pt.type;
    arg.optional = pt.optional;
    arg.is_symbolic = pt.is_symbolic;
    arg.fixed_length = pt.fixed_length;
    arg.is_mutable = pt.is_mutable;
    arg.alias_set = pt.alias_set;
    arg.kwarg_only = kwarg_only;
    schema.arguments.push_back(std::move(arg));
  }

  auto arrow = text.find("->", close);
  if (arrow == std::string_view::npos)
    throw fail("missing '->'");
  auto rets = trim(text.substr(arrow + 2));
  if (!rets.empty() && rets.front() == '(') {
    auto rclose = matchParen(rets, 0);
    if (rclose == std::string_view::npos)
      throw fail("unbalanced return list");
    // "(Tensor(a) values, Tensor indices)" or "(Tensor, Tensor)" or "()"; a single
    // parenthesised alias like "Tensor(a)" never starts with '('.
    for (auto item : splitTopLevel(rets.substr(1, rclose - 1))) {
      auto [type_text, rest] = splitTypeAndRest(item);
      SchemaReturn r;
      r.type_text = std::string(type_text);
      r.name = std::string(rest);
      ParsedType pt = parseType(type_text);
      r.type = pt.type;
      r.is_mutable = pt.is_mutable;
      r.alias_set = pt.alias_set;
      schema.returns.push_back(std::move(r));
    }
  } else if (!rets.empty()) {
    SchemaReturn r;
    r.type_text = std::string(rets);
    ParsedType pt = parseType(rets);
    r.type = pt.type;
    r.is_mutable = pt.is_mutable;
    r.alias_set = pt.alias_set;
    schema.returns.push_back(std::move(r));
  }
  return schema;
}

std::string OpSchema::str() const {
  std::string out = key.qualifiedName();
  if (key.overload != "default")
    out += "." + key.overload;
  out += "(";
  bool kw = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const auto &a = arguments[i];
    if (i)
      out += ", ";
    if (a.kwarg_only && !kw) {
      out += "*, ";
      kw = true;
    }
    out += a.type_text + " " + a.name;
    if (a.default_text)
      out += "=" + *a.default_text;
  }
  out += ") -> ";
  if (returns.size() == 1 && returns[0].name.empty()) {
    out += returns[0].type_text;
  } else {
    out += "(";
    for (std::size_t i = 0; i < returns.size(); ++i) {
      if (i)
        out += ", ";
      out += returns[i].type_text;
      if (!returns[i].name.empty())
        out += " " + returns[i].name;
    }
    out += ")";
  }
  return out;
}

int OpSchema::argumentIndex(std::string_view name) const {
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == name)
      return static_cast<int>(i);
  return -1;
}

std::vector<std::size_t> OpSchema::mutatedArguments() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].is_mutable)
      out.push_back(i);
  return out;
}

bool OpSchema::isView() const {
  if (arguments.empty() || returns.empty() || arguments[0].alias_set.empty() || arguments[0].is_mutable)
    return false;
  for (const SchemaArgument &a : arguments)
    if (a.is_mutable)
      return false;
  return returns[0].alias_set == arguments[0].alias_set && !returns[0].is_mutable;
}

// ---- OpSchemaRegistry --------------------------------------------------------------------------

const OpSchemaRegistry &OpSchemaRegistry::empty() {
  static const OpSchemaRegistry registry;
  return registry;
}

std::size_t OpSchemaRegistry::addParsable(const std::string_view *texts, std::size_t count) {
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < count; ++i) {
    try {
      add(OpSchema::parse(texts[i]));
    } catch (const Error &) {
      ++skipped;
    }
  }
  return skipped;
}

void OpSchemaRegistry::add(std::shared_ptr<const OpSchema> schema) {
  OpKey key = schema->key;
  schemas_[std::move(key)] = std::move(schema);
}

std::shared_ptr<const OpSchema> OpSchemaRegistry::findShared(const OpKey &key) const {
  auto it = schemas_.find(key);
  return it == schemas_.end() ? nullptr : it->second;
}

void OpSchemaRegistry::add(OpSchema schema) {
  OpKey key = schema.key;
  schemas_[key] = std::make_shared<const OpSchema>(std::move(schema));
}

const OpSchema *OpSchemaRegistry::find(const OpKey &key) const {
  auto it = schemas_.find(key);
  return it == schemas_.end() ? nullptr : it->second.get();
}

std::vector<OpKey> OpSchemaRegistry::keys() const {
  std::vector<OpKey> out;
  out.reserve(schemas_.size());
  for (const auto &entry : schemas_)
    out.push_back(entry.first);
  return out;
}

std::vector<std::string> OpSchemaRegistry::overloadsOf(const std::string &ns, const std::string &name) const {
  std::vector<std::string> out;
  for (auto it = schemas_.lower_bound(OpKey(ns, name, "")); it != schemas_.end(); ++it) {
    if (it->first.ns != ns || it->first.name != name)
      break;
    out.push_back(it->first.overload);
  }
  return out;
}

} // namespace tico
