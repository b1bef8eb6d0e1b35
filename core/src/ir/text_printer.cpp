// Prints the graph IR in its textual form (see tico/ir/text.h for the syntax).
#include "text_common.h"
#include "tico/ir/sym_expr.h"
#include "tico/ir/text.h"

#include <cstring>
#include <map>
#include <sstream>

namespace tico {
namespace {

using namespace text;

template <typename T, typename F> std::string listText(const std::vector<T> &items, F format) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + format(items[i]);
  return out + "]";
}

// " {q: scale=[...], zp=[...], axis=0, block=32, min=[...], max=[...]}" (absent parts omitted).
// MX values: " {q: mx=mxint8, axis=1}".
std::string quantText(const QuantParams &q) {
  if (q.isMx())
    return " {q: mx=" + std::string(mxFormatName(*q.mx)) + (q.axis ? ", axis=" + std::to_string(*q.axis) : "") + "}";
  auto integer = [](int64_t v) { return std::to_string(v); };
  std::string out = " {q: scale=" + listText(q.scale, formatFloat) + ", zp=" + listText(q.zero_point, integer);
  if (q.axis)
    out += ", axis=" + std::to_string(*q.axis);
  if (q.block_size)
    out += ", block=" + std::to_string(*q.block_size);
  if (!q.min.empty() || !q.max.empty())
    out += ", min=" + listText(q.min, formatFloat) + ", max=" + listText(q.max, formatFloat);
  return out + "}";
}

std::string typeText(const Value &v) {
  switch (v.kind()) {
  case ValueKind::SymInt:
    return v.symExpr().empty() ? "sym_int" : "sym_int(" + v.symExpr() + ")";
  case ValueKind::SymFloat:
    return "sym_float";
  case ValueKind::SymBool:
    return "sym_bool";
  case ValueKind::Tensor:
    break;
  }
  std::string out = std::string(dtypeName(v.dtype())) + shapeString(v.shape());
  if (const QuantParams *q = v.quant())
    out += quantText(*q);
  return out;
}

template <typename T> std::string elementText(const std::byte *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::is_same_v<T, float>)
    return formatFloat(v);
  else if constexpr (std::is_same_v<T, double>)
    return formatDouble(v);
  else if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else
    return std::to_string(v);
}

std::string elementAt(DType dtype, const std::byte *p) {
  switch (dtype) {
  case DType::Bool:
    return elementText<bool>(p);
  case DType::UInt8:
  case DType::UInt4: // stored unpacked, one value per byte
    return elementText<uint8_t>(p);
  case DType::Int8:
  case DType::Int4:
    return elementText<int8_t>(p);
  case DType::Int16:
    return elementText<int16_t>(p);
  case DType::Int32:
    return elementText<int32_t>(p);
  case DType::Int64:
    return elementText<int64_t>(p);
  case DType::UInt16:
    return elementText<uint16_t>(p);
  case DType::UInt32:
    return elementText<uint32_t>(p);
  case DType::UInt64:
    return elementText<uint64_t>(p);
  case DType::Float32:
    return elementText<float>(p);
  case DType::Float64:
    return elementText<double>(p);
  default:
    return "?";
  }
}

std::string dataText(const TensorData &data, const PrintOptions &options) {
  int64_t n = data.numel();
  if (options.elide_constants_above >= 0 && n > options.elide_constants_above) {
    // Only the size: reading (let alone hashing) a multi-gigabyte mapped weight to print a
    // dump would cost as much as the conversion.
    return "elided<" + std::to_string(data.nbytes()) + " bytes>";
  }
  std::vector<std::byte> bytes = data.contiguousBytes();
  if (!printsAsNumbers(data.dtype)) {
    static const char *digits = "0123456789abcdef";
    std::string hex;
    for (std::byte b : bytes) {
      hex += digits[static_cast<uint8_t>(b) >> 4];
      hex += digits[static_cast<uint8_t>(b) & 15];
    }
    return "hex<\"" + hex + "\">";
  }
  std::string out = "dense<[";
  std::size_t esize = elementSize(data.dtype);
  for (int64_t i = 0; i < n; ++i) {
    if (i)
      out += ", ";
    out += elementAt(data.dtype, bytes.data() + i * esize);
  }
  return out + "]>";
}

std::string ref(const Value *v) { return v ? "%" + v->name() : "None"; }

std::string argumentText(const Argument &a) {
  using K = Argument::Kind;
  auto join = [](const auto &items, auto fn) {
    std::string s = "[";
    bool first = true;
    for (const auto &item : items) {
      if (!first)
        s += ", ";
      first = false;
      s += fn(item);
    }
    return s + "]";
  };
  switch (a.kind()) {
  case K::None:
    return "None";
  case K::Value:
    return ref(a.asValue());
  case K::ValueList:
    return join(a.asValues(), ref);
  case K::OptionalValueList:
    return "opt" + join(a.asValues(), ref);
  case K::Int:
    return std::to_string(a.asInt());
  case K::IntList:
    return join(a.asInts(), [](int64_t v) { return std::to_string(v); });
  case K::SymIntList:
    return join(a.asSymInts(), [](const SymIntElem &e) { return e.sym ? ref(e.sym) : std::to_string(e.value); });
  case K::Float:
    return formatDouble(a.asDouble());
  case K::FloatList:
    return join(a.asDoubles(), [](double v) { return formatDouble(v); });
  case K::Bool:
    return a.asBool() ? "true" : "false";
  case K::BoolList: {
    std::vector<bool> bs = a.asBools();
    std::string s = "[";
    for (std::size_t i = 0; i < bs.size(); ++i)
      s += std::string(i ? ", " : "") + (bs[i] ? "true" : "false");
    return s + "]";
  }
  case K::String:
    return quote(a.asString());
  case K::StringList:
    return join(a.asStrings(), [](const std::string &s) { return quote(s); });
  case K::ScalarType:
    return "dtype(" + std::string(dtypeName(a.asScalarType())) + ")";
  case K::Layout:
    return "layout(" + std::string(layoutName(a.asLayout())) + ")";
  case K::MemoryFormat:
    return "memory_format(" + std::string(memoryFormatName(a.asMemoryFormat())) + ")";
  case K::Device: {
    const Device &d = a.asDevice();
    return "device(" + d.type + (d.index >= 0 ? ":" + std::to_string(d.index) : "") + ")";
  }
  }
  return "?";
}

bool isDefault(const SchemaArgument &sa, const Argument &value) {
  if (!sa.hasDefault())
    return false;
  try {
    return sa.defaultValue() == value;
  } catch (const std::exception &) {
    return false;
  }
}

std::string callText(const Node &n) {
  std::string out = n.op().str() + "(";
  bool first = true;
  auto emit = [&](const std::string &s) {
    out += (first ? "" : ", ") + s;
    first = false;
  };
  if (const OpSchema *schema = n.schema()) {
    bool positional = true;
    for (std::size_t i = 0; i < n.numArgs(); ++i) {
      const SchemaArgument &sa = schema->arguments[i];
      const Argument &a = n.arg(i);
      if (isDefault(sa, a)) {
        positional = false;
        continue;
      }
      if (sa.kwarg_only)
        positional = false;
      emit(positional ? argumentText(a) : sa.name + "=" + argumentText(a));
    }
  } else {
    for (std::size_t i = 0; i < n.numArgs(); ++i) {
      const auto &na = n.args()[i];
      bool synthetic = na.name == "arg" + std::to_string(i);
      emit(synthetic ? argumentText(na.value) : na.name + "=" + argumentText(na.value));
    }
  }
  return out + ")";
}

const char *inputKeyword(InputKind kind) {
  switch (kind) {
  case InputKind::User:
    return "input";
  case InputKind::Parameter:
    return "param";
  case InputKind::Buffer:
    return "buffer";
  case InputKind::Constant:
    return "constant";
  case InputKind::Token:
    return "token";
  case InputKind::CustomObject:
    return "custom_object";
  case InputKind::ConstantInput:
    return "constant_input";
  }
  return "input";
}

std::string outputText(const GraphOutput &o) {
  std::string prefix;
  switch (o.kind) {
  case OutputKind::User:
    break;
  case OutputKind::BufferMutation:
    prefix = "buffer_mutation " + quote(o.target) + " ";
    break;
  case OutputKind::UserInputMutation:
    prefix = "user_input_mutation " + quote(o.target) + " ";
    break;
  case OutputKind::ParameterMutation:
    prefix = "parameter_mutation " + quote(o.target) + " ";
    break;
  case OutputKind::Loss:
    prefix = "loss ";
    break;
  case OutputKind::Token:
    prefix = "token ";
    break;
  }
  return prefix + argumentText(o.value);
}

// Hints of bare symbols, read from the dims that use them.
std::map<std::string, int64_t> symbolHints(const Graph &g) {
  std::map<std::string, int64_t> hints;
  auto visit = [&](const Value *v) {
    if (!v)
      return;
    for (const Dim &d : v->shape())
      if (d.isSymbolic() && SymExpr::parse(d.expr()).isSymbol())
        hints[d.expr()] = d.value();
  };
  for (const auto &in : g.inputs())
    visit(in.value);
  for (const auto &n : g.nodes())
    for (const Value *o : n->outputs())
      visit(o);
  return hints;
}

} // namespace

std::string printGraph(const Graph &g, const PrintOptions &options) {
  std::ostringstream os;
  os << "graph @" << g.name << " {\n";
  auto hints = symbolHints(g);
  for (const auto &[name, range] : g.symbols()) {
    os << "  symbol " << name << " in [" << range.min << ", "
       << (range.max ? std::to_string(*range.max) : std::string("inf")) << "]";
    if (auto it = hints.find(name); it != hints.end())
      os << " hint " << it->second;
    os << "\n";
  }
  for (const auto &[name, hint] : hints)
    if (!g.symbols().count(name))
      os << "  symbol " << name << " hint " << hint << "\n";
  for (const auto &in : g.inputs()) {
    if (in.kind == InputKind::ConstantInput) {
      os << "  constant_input " << quote(in.name) << " = " << argumentText(in.constant_value) << "\n";
      continue;
    }
    os << "  " << inputKeyword(in.kind) << " " << ref(in.value) << ": " << typeText(*in.value);
    if (in.kind == InputKind::Parameter || in.kind == InputKind::Buffer || in.kind == InputKind::Constant) {
      os << " " << quote(in.target);
      if (in.kind == InputKind::Buffer && !in.persistent)
        os << " nonpersistent";
      if (in.value->isConstant())
        os << " = " << dataText(*in.value->constant(), options);
    }
    os << "\n";
  }
  for (const Value *c : g.constants())
    os << "  " << ref(c) << " = const " << typeText(*c) << " " << dataText(*c->constant(), options) << "\n";
  for (const auto &n : g.nodes()) {
    os << "  ";
    for (std::size_t i = 0; i < n->numOutputs(); ++i)
      os << (i ? ", " : "") << ref(n->output(i)) << ": " << typeText(*n->output(i));
    if (n->numOutputs() > 0)
      os << " = ";
    if (n->numOutputs() == 0 || n->name() != n->output(0)->name())
      os << "@" << n->name() << " ";
    os << callText(*n);
    if (options.print_meta) {
      std::string hint = n->sourceHint();
      if (!hint.empty())
        os << "  # " << hint;
    }
    os << "\n";
  }
  os << "  return";
  for (std::size_t i = 0; i < g.outputs().size(); ++i)
    os << (i ? ", " : " ") << outputText(g.outputs()[i]);
  os << "\n}\n";
  return os.str();
}

std::vector<std::string> splitInputFile(std::string_view text) {
  std::vector<std::string> parts;
  std::string current;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (line == "// -----") {
      parts.push_back(std::move(current));
      current.clear();
    } else {
      current += line;
      current += '\n';
    }
    if (end == std::string_view::npos)
      break;
    pos = end + 1;
  }
  parts.push_back(std::move(current));
  return parts;
}

} // namespace tico
