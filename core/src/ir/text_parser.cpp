// Parses the textual IR printed by text_printer.cpp.
#include "text_common.h"
#include "tico/ir/sym_expr.h"
#include "tico/ir/text.h"
#include "tico/support/checked.h"
#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace tico {
namespace {

using namespace text;

// A literal as written, before it is matched to a schema argument type.
struct Literal {
  Argument value;
  bool empty_list = false; // "[]": its element type comes from the schema
};

class Parser {
public:
  Parser(std::string_view text, const ParseOptions &options) : text_(text), options_(options) {}

  std::unique_ptr<Graph> parse() {
    graph_ = std::make_unique<Graph>();
    if (options_.schemas)
      graph_->setSchemas(options_.schemas);
    expectWord("graph");
    expect('@');
    graph_->name = ident();
    expect('{');
    while (!tryChar('}'))
      item();
    skip();
    if (pos_ != text_.size())
      fail("unexpected text after the graph");
    return std::move(graph_);
  }

private:
  // ---- lexing helpers ----------------------------------------------------------------------
  [[noreturn]] void fail(const std::string &message) { failAt(pos_, message); }
  [[noreturn]] void failAt(std::size_t at, const std::string &message) {
    SourceLocation loc;
    loc.file = options_.file_name;
    loc.line = 1;
    loc.column = 1;
    for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++loc.line;
        loc.column = 1;
      } else {
        ++loc.column;
      }
    }
    throw LocatedError(loc, message);
  }
  void skip() {
    for (;;) {
      while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      // '#' comments, and '//' comments that start a line's content (RUN/CHECK lines).
      bool hash = pos_ < text_.size() && text_[pos_] == '#';
      bool slashes = text_.substr(pos_, 2) == "//" && atLineStart(pos_);
      if (!hash && !slashes)
        return;
      while (pos_ < text_.size() && text_[pos_] != '\n')
        ++pos_;
    }
  }
  bool atLineStart(std::size_t at) const {
    while (at > 0 && (text_[at - 1] == ' ' || text_[at - 1] == '\t'))
      --at;
    return at == 0 || text_[at - 1] == '\n';
  }
  bool peekChar(char c) {
    skip();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool tryChar(char c) {
    if (!peekChar(c))
      return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!tryChar(c))
      fail(std::string("expected '") + c + "'");
  }
  static bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  bool peekWord(std::string_view w) {
    skip();
    return text_.substr(pos_, w.size()) == w &&
           (pos_ + w.size() >= text_.size() || !identChar(text_[pos_ + w.size()]));
  }
  bool tryWord(std::string_view w) {
    if (!peekWord(w))
      return false;
    pos_ += w.size();
    return true;
  }
  void expectWord(std::string_view w) {
    if (!tryWord(w))
      fail("expected '" + std::string(w) + "'");
  }
  std::string ident() {
    skip();
    std::size_t start = pos_;
    while (pos_ < text_.size() && identChar(text_[pos_]))
      ++pos_;
    if (start == pos_)
      fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  // Operator names: ns::name.overload
  std::string opName() {
    skip();
    std::size_t start = pos_;
    while (pos_ < text_.size() && (identChar(text_[pos_]) || text_[pos_] == ':' || text_[pos_] == '.'))
      ++pos_;
    if (start == pos_)
      fail("expected an operator name");
    return std::string(text_.substr(start, pos_ - start));
  }
  std::string valueName() {
    expect('%');
    std::size_t start = pos_;
    while (pos_ < text_.size() && (identChar(text_[pos_]) || text_[pos_] == '.'))
      ++pos_;
    if (start == pos_)
      fail("expected a value name after '%'");
    return std::string(text_.substr(start, pos_ - start));
  }
  Value *valueRef() {
    skip();
    std::size_t at = pos_;
    std::string name = valueName();
    Value *v = graph_->findValue(name);
    if (!v)
      failAt(at, "use of undefined value '%" + clipped(name) + "'");
    return v;
  }
  static int hexDigit(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }
  std::string stringLiteral() {
    skip();
    if (pos_ >= text_.size() || text_[pos_] != '"')
      fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        if (e == 'n')
          out += '\n';
        else if (e == 't')
          out += '\t';
        else if (e == 'x') {
          // Exactly two hex digits, as the printer writes them.
          const int hi = pos_ < text_.size() ? hexDigit(text_[pos_]) : -1;
          const int lo = pos_ + 1 < text_.size() ? hexDigit(text_[pos_ + 1]) : -1;
          if (hi < 0 || lo < 0)
            failAt(pos_ - 2, "a \\x escape needs two hex digits");
          out += static_cast<char>(hi * 16 + lo);
          pos_ += 2;
        } else
          out += e;
      } else {
        out += c;
      }
    }
    if (pos_ >= text_.size())
      fail("unterminated string");
    ++pos_;
    return out;
  }
  // A number: returns true and sets is_float when it is a float.
  std::string numberText(bool &is_float) {
    skip();
    std::size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+'))
      ++pos_;
    if (text_.substr(pos_, 3) == "inf" || text_.substr(pos_, 3) == "nan") {
      pos_ += 3;
      is_float = true;
      return std::string(text_.substr(start, pos_ - start));
    }
    is_float = false;
    std::size_t digits = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
        ++pos_;
        if ((c == 'e' || c == 'E') && pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+'))
          ++pos_;
      } else {
        break;
      }
    }
    if (digits == pos_)
      fail("expected a number");
    return std::string(text_.substr(start, pos_ - start));
  }
  int64_t integer() {
    std::size_t at = pos_;
    bool is_float = false;
    std::string t = numberText(is_float);
    if (is_float)
      failAt(at, "expected an integer, got '" + clipped(t) + "'");
    return int64At(t, at);
  }
  // An integer literal as int64; one out of range is a located error (std::stoll would throw
  // std::out_of_range, which is not a tico::Error; found by the text-ir fuzzer).
  int64_t int64At(const std::string &text, std::size_t at) {
    int64_t value = 0;
    const char *begin = text.data() + (text.starts_with('+') ? 1 : 0);
    const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range)
      failAt(at, "integer " + clipped(text) + " does not fit in 64 bits");
    if (error != std::errc() || end != text.data() + text.size())
      failAt(at, "bad integer '" + clipped(text) + "'");
    return value;
  }

  // ---- types ----------------------------------------------------------------------------------
  struct TypeSpec {
    ValueKind kind = ValueKind::Tensor;
    DType dtype = DType::Unknown;
    Shape shape;
    std::string sym_expr;
    std::shared_ptr<const QuantParams> quant;
  };

  Dim parseDim(std::string_view text, std::size_t at) {
    std::string t(text);
    bool numeric = !t.empty();
    for (std::size_t i = 0; i < t.size(); ++i)
      numeric &= std::isdigit(static_cast<unsigned char>(t[i])) || (i == 0 && t[i] == '-');
    if (numeric)
      return staticDim(int64At(t, at), at);
    std::optional<SymExpr> e;
    std::optional<int64_t> fixed;
    try {
      e = SymExpr::parse(t);
      // An expression without symbols ("- 0", "2*3") is a fixed size: kept symbolic it would
      // print as text that parses back as a number, and the printed form would not be stable.
      if (e->symbols().empty()) {
        fixed = e->evaluate({});
        if (!fixed)
          throw Error("dimension '" + clipped(t) + "' does not fit in 64 bits");
      }
    } catch (const Error &err) {
      failAt(at, err.what());
    }
    if (fixed)
      return staticDim(*fixed, at);
    auto hint = e->evaluate(hints_);
    return Dim::symbolic(e->str(), hint.value_or(1));
  }

  Dim staticDim(int64_t size, std::size_t at) {
    if (size < 0)
      failAt(at, "a dimension size is never negative (got " + std::to_string(size) + ")");
    return Dim(size);
  }

  TypeSpec type() {
    skip();
    std::size_t at = pos_;
    std::string name = ident();
    TypeSpec spec;
    if (name == "sym_int" || name == "sym_float" || name == "sym_bool") {
      spec.kind = name == "sym_int" ? ValueKind::SymInt : name == "sym_float" ? ValueKind::SymFloat : ValueKind::SymBool;
      spec.dtype = name == "sym_int" ? DType::Int64 : name == "sym_float" ? DType::Float64 : DType::Bool;
      if (tryChar('(')) {
        std::size_t start = pos_;
        int depth = 1;
        while (pos_ < text_.size() && depth > 0) {
          if (text_[pos_] == '(')
            ++depth;
          else if (text_[pos_] == ')')
            --depth;
          ++pos_;
        }
        if (depth != 0)
          fail("unterminated symbolic expression");
        spec.sym_expr = std::string(text_.substr(start, pos_ - start - 1));
      }
      return spec;
    }
    auto dtype = parseDType(name);
    if (!dtype)
      failAt(at, "unknown element type '" + clipped(name) + "'");
    spec.dtype = *dtype;
    expect('[');
    skip();
    if (tryChar(']'))
      return spec;
    for (;;) {
      skip();
      std::size_t start = pos_;
      int depth = 0;
      while (pos_ < text_.size()) {
        char c = text_[pos_];
        if (c == '(')
          ++depth;
        else if (c == ')')
          --depth;
        else if ((c == ',' || c == ']') && depth == 0)
          break;
        ++pos_;
      }
      std::string_view dim = text_.substr(start, pos_ - start);
      while (!dim.empty() && std::isspace(static_cast<unsigned char>(dim.back())))
        dim.remove_suffix(1);
      if (dim.empty())
        failAt(start, "empty dimension");
      spec.shape.push_back(parseDim(dim, start));
      if (tryChar(']'))
        break;
      expect(',');
    }
    if (peekChar('{'))
      spec.quant = quantParams();
    return spec;
  }

  // "{q: scale=[...], zp=[...], axis=0, block=32, min=[...], max=[...]}" after a tensor type.
  std::shared_ptr<const QuantParams> quantParams() {
    std::size_t at = pos_;
    expect('{');
    expectWord("q");
    expect(':');
    QuantParams q;
    std::set<std::string> seen;
    do {
      skip();
      std::size_t key_at = pos_;
      std::string key = ident();
      if (!seen.insert(key).second)
        failAt(key_at, "'" + key + "' is given twice in the quantization parameters");
      expect('=');
      if (key == "scale")
        q.scale = floatList();
      else if (key == "zp")
        q.zero_point = integerList();
      else if (key == "axis")
        q.axis = integer();
      else if (key == "block")
        q.block_size = integer();
      else if (key == "min")
        q.min = floatList();
      else if (key == "max")
        q.max = floatList();
      else if (key == "mx") {
        skip();
        std::size_t format_at = pos_;
        std::string format = ident();
        q.mx = mxFormatFromName(format);
        if (!q.mx)
          failAt(format_at, "unknown MX format '" + format + "' (expected mxint8 or mxfp4)");
      } else
        failAt(key_at, "unknown quantization parameter '" + key + "' (expected scale, zp, axis, block, min, max, mx)");
    } while (tryChar(','));
    expect('}');
    if (q.mx) {
      if (!seen.count("axis") || seen.size() != 2)
        failAt(at, "MX quantization parameters are mx=<format> and axis=<dim>, nothing else");
    } else if (!seen.count("scale") || !seen.count("zp"))
      failAt(at, "quantization parameters need scale=[...] and zp=[...]");
    return std::make_shared<const QuantParams>(std::move(q));
  }

  std::vector<float> floatList() {
    std::vector<float> out;
    expect('[');
    if (tryChar(']'))
      return out;
    do {
      bool is_float = false;
      out.push_back(std::strtof(numberText(is_float).c_str(), nullptr));
    } while (tryChar(','));
    expect(']');
    return out;
  }

  std::vector<int64_t> integerList() {
    std::vector<int64_t> out;
    expect('[');
    if (tryChar(']'))
      return out;
    do
      out.push_back(integer());
    while (tryChar(','));
    expect(']');
    return out;
  }

  // ---- constant payloads ----------------------------------------------------------------------
  template <typename T> void append(std::vector<std::byte> &out, T v) {
    std::byte b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
  }

  // The whole text as an integer of type T; a value outside T's range (which a cast would wrap
  // silently) or trailing characters throw, and the caller names the element.
  template <typename T> void appendInteger(std::vector<std::byte> &out, const std::string &t) {
    T v{};
    const char *begin = t.data(), *end = t.data() + t.size();
    if (!t.empty() && t[0] == '+')
      ++begin;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end)
      throw std::invalid_argument(t);
    append<T>(out, v);
  }

  void appendElement(std::vector<std::byte> &out, DType dtype) {
    skip();
    if (dtype == DType::Bool) {
      if (tryWord("true"))
        return append<uint8_t>(out, 1);
      if (tryWord("false"))
        return append<uint8_t>(out, 0);
      fail("expected true or false");
    }
    bool is_float = false;
    std::size_t at = pos_;
    std::string t = numberText(is_float);
    try {
      switch (dtype) {
      case DType::Float32:
        return append<float>(out, std::strtof(t.c_str(), nullptr));
      case DType::Float64:
        return append<double>(out, std::strtod(t.c_str(), nullptr));
      case DType::UInt4:
      case DType::Int4: {
        // Stored one value per byte; a value outside the 4-bit range has no packed form.
        const int64_t v = is_float ? qmax(dtype) + 1 : int64At(t, at);
        if (v < qmin(dtype) || v > qmax(dtype))
          break;
        return append<int8_t>(out, static_cast<int8_t>(v));
      }
      case DType::UInt8:
        return appendInteger<uint8_t>(out, t);
      case DType::Int8:
        return appendInteger<int8_t>(out, t);
      case DType::Int16:
        return appendInteger<int16_t>(out, t);
      case DType::Int32:
        return appendInteger<int32_t>(out, t);
      case DType::Int64:
        return appendInteger<int64_t>(out, t);
      case DType::UInt16:
        return appendInteger<uint16_t>(out, t);
      case DType::UInt32:
        return appendInteger<uint32_t>(out, t);
      case DType::UInt64:
        return appendInteger<uint64_t>(out, t);
      default:
        break;
      }
    } catch (const std::exception &) {
    }
    failAt(at, "bad element '" + clipped(t) + "' for " + std::string(dtypeName(dtype)));
  }

  std::shared_ptr<const TensorData> data(const TypeSpec &spec) {
    skip();
    std::size_t at = pos_;
    if (!isStatic(spec.shape))
      failAt(at, "constants need a static shape");
    std::vector<int64_t> sizes = hintSizes(spec.shape);
    const auto byte_size = byteSize(sizes, elementSize(spec.dtype));
    if (!byte_size)
      failAt(at, "constant of shape " + detail::shapeListText(sizes) +
                     (std::any_of(sizes.begin(), sizes.end(), [](int64_t d) { return d < 0; })
                          ? " has a negative dimension"
                          : " is too large (its byte size overflows int64)"));
    const auto nbytes = static_cast<std::size_t>(*byte_size);
    std::vector<std::byte> bytes;
    if (tryWord("dense")) {
      expect('<');
      expect('[');
      if (!tryChar(']')) {
        for (;;) {
          appendElement(bytes, spec.dtype);
          if (tryChar(']'))
            break;
          expect(',');
        }
      }
      expect('>');
    } else if (tryWord("hex")) {
      expect('<');
      std::string hex = stringLiteral();
      expect('>');
      if (hex.size() % 2)
        failAt(at, "odd number of hex digits");
      for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hexDigit(hex[i]), lo = hexDigit(hex[i + 1]);
        if (hi < 0 || lo < 0)
          failAt(at, "hex payload has a character that is not a hex digit near byte " + std::to_string(i / 2));
        bytes.push_back(static_cast<std::byte>(hi * 16 + lo));
      }
    } else if (tryWord("elided")) {
      expect('<');
      while (pos_ < text_.size() && text_[pos_] != '>')
        ++pos_;
      expect('>');
      if (!options_.allow_elided)
        failAt(at, "constant payload is elided; print with elision off, or parse with allow_elided");
      bytes.assign(nbytes, std::byte{0});
    } else {
      fail("expected dense<...>, hex<...> or elided<...>");
    }
    if (bytes.size() != nbytes)
      failAt(at, "constant of type " + std::string(dtypeName(spec.dtype)) + shapeString(spec.shape) + " needs " +
                     std::to_string(nbytes) + " bytes, the payload has " + std::to_string(bytes.size()));
    return std::make_shared<const TensorData>(TensorData::fromBytes(spec.dtype, sizes, std::move(bytes)));
  }

  // ---- arguments ------------------------------------------------------------------------------
  Literal literal() {
    skip();
    std::size_t at = pos_;
    if (tryWord("None"))
      return {Argument::none()};
    if (tryWord("true"))
      return {Argument::boolean(true)};
    if (tryWord("false"))
      return {Argument::boolean(false)};
    if (peekChar('%'))
      return {Argument::value(valueRef())};
    if (peekChar('"'))
      return {Argument::string(stringLiteral())};
    if (tryWord("dtype")) {
      expect('(');
      std::string n = ident();
      expect(')');
      auto d = parseDType(n);
      if (!d)
        failAt(at, "unknown dtype '" + clipped(n) + "'");
      return {Argument::scalarType(*d)};
    }
    if (tryWord("layout")) {
      expect('(');
      std::string n = ident();
      expect(')');
      Layout l;
      if (!parseLayoutName(n, l))
        failAt(at, "unknown layout '" + clipped(n) + "'");
      return {Argument::layout(l)};
    }
    if (tryWord("memory_format")) {
      expect('(');
      std::string n = ident();
      expect(')');
      MemoryFormat m;
      if (!parseMemoryFormatName(n, m))
        failAt(at, "unknown memory format '" + clipped(n) + "'");
      return {Argument::memoryFormat(m)};
    }
    if (tryWord("device")) {
      expect('(');
      Device d;
      d.type = ident();
      if (tryChar(':'))
        d.index = static_cast<int>(integer());
      expect(')');
      return {Argument::device(d)};
    }
    bool optional_list = tryWord("opt");
    if (tryChar('['))
      return list(at, optional_list);
    if (optional_list)
      failAt(at, "expected '[' after opt");
    bool is_float = false;
    std::string t = numberText(is_float);
    if (is_float)
      return {Argument::real(std::strtod(t.c_str(), nullptr))};
    return {Argument::integer(int64At(t, at))};
  }

  Literal list(std::size_t at, bool optional_list) {
    std::vector<Literal> items;
    if (!tryChar(']')) {
      for (;;) {
        items.push_back(literal());
        if (tryChar(']'))
          break;
        expect(',');
      }
    }
    using K = Argument::Kind;
    if (items.empty()) {
      if (optional_list)
        return {Argument::optionalValues({})};
      return {Argument::ints({}), true};
    }
    bool has_value = false, has_none = false, has_int = false, has_float = false, has_bool = false,
         has_string = false;
    for (const auto &i : items) {
      switch (i.value.kind()) {
      case K::Value:
        has_value = true;
        break;
      case K::None:
        has_none = true;
        break;
      case K::Int:
        has_int = true;
        break;
      case K::Float:
        has_float = true;
        break;
      case K::Bool:
        has_bool = true;
        break;
      case K::String:
        has_string = true;
        break;
      default:
        failAt(at, "unsupported list element");
      }
    }
    if (optional_list || (has_value && has_none)) {
      std::vector<Value *> vs;
      for (const auto &i : items)
        vs.push_back(i.value.isNone() ? nullptr : i.value.asValue());
      return {Argument::optionalValues(vs)};
    }
    if (has_value && has_int) {
      std::vector<SymIntElem> es;
      for (const auto &i : items)
        es.push_back(i.value.isValue() ? SymIntElem{0, i.value.asValue()} : SymIntElem{i.value.asInt(), nullptr});
      return {Argument::symInts(es)};
    }
    if (has_value) {
      std::vector<Value *> vs;
      for (const auto &i : items)
        vs.push_back(i.value.asValue());
      return {Argument::values(vs)};
    }
    if (has_string) {
      std::vector<std::string> ss;
      for (const auto &i : items)
        ss.push_back(i.value.asString());
      return {Argument::strings(ss)};
    }
    if (has_bool && !has_int && !has_float) {
      std::vector<bool> bs;
      for (const auto &i : items)
        bs.push_back(i.value.asBool());
      return {Argument::bools(bs)};
    }
    if (has_float) {
      std::vector<double> ds;
      for (const auto &i : items)
        ds.push_back(i.value.asDouble());
      return {Argument::reals(ds)};
    }
    std::vector<int64_t> is;
    for (const auto &i : items)
      is.push_back(i.value.asInt());
    return {Argument::ints(is)};
  }

  // Adapts a literal to the schema slot it fills (lists whose element type the text cannot
  // tell, symbolic int lists written only with values).
  static Argument coerce(const SchemaArgument *sa, Literal lit) {
    if (sa == nullptr)
      return std::move(lit.value);
    using K = Argument::Kind;
    if (lit.empty_list) {
      switch (sa->type) {
      case ArgType::TensorList:
        return Argument::values({});
      case ArgType::OptionalTensorList:
        return Argument::optionalValues({});
      case ArgType::FloatList:
        return Argument::reals({});
      case ArgType::BoolList:
        return Argument::bools({});
      case ArgType::StringList:
        return Argument::strings({});
      default:
        return std::move(lit.value);
      }
    }
    if (sa->type == ArgType::IntList && lit.value.kind() == K::ValueList) {
      std::vector<SymIntElem> es;
      for (Value *v : lit.value.asValues())
        es.push_back(SymIntElem{0, v});
      return Argument::symInts(es);
    }
    if ((sa->type == ArgType::Float || sa->type == ArgType::FloatList) && lit.value.kind() == K::Int)
      return Argument::real(static_cast<double>(lit.value.asInt()));
    return std::move(lit.value);
  }

  // ---- items ----------------------------------------------------------------------------------
  void item() {
    skip();
    std::size_t at = pos_;
    if (tryWord("symbol"))
      return symbolLine();
    if (tryWord("input"))
      return inputLine(InputKind::User);
    if (tryWord("param"))
      return inputLine(InputKind::Parameter);
    if (tryWord("buffer"))
      return inputLine(InputKind::Buffer);
    if (tryWord("constant_input")) {
      std::string name = stringLiteral();
      expect('=');
      graph_->addConstantInput(name, literal().value);
      return;
    }
    if (tryWord("constant"))
      return inputLine(InputKind::Constant);
    if (tryWord("return"))
      return returnLine();
    if (peekChar('%'))
      return definition(at);
    if (peekChar('@')) {
      ++pos_;
      std::string node_name = ident();
      call({}, node_name, at);
      return;
    }
    fail("expected a graph item (input, param, buffer, constant, symbol, %value = ..., return)");
  }

  void symbolLine() {
    std::string name = ident();
    SymbolRange range;
    bool has_range = false;
    if (tryWord("in")) {
      has_range = true;
      expect('[');
      range.min = integer();
      expect(',');
      if (!tryWord("inf"))
        range.max = integer();
      expect(']');
    }
    if (tryWord("hint"))
      hints_[name] = integer();
    if (has_range)
      graph_->symbols()[name] = range;
  }

  void inputLine(InputKind kind) {
    skip();
    std::size_t at = pos_;
    std::string name = valueName();
    if (graph_->findValue(name))
      failAt(at, "redefinition of '%" + clipped(name) + "'");
    expect(':');
    TypeSpec spec = type();
    if (spec.kind != ValueKind::Tensor) {
      if (kind != InputKind::User)
        failAt(at, "only user inputs can be symbolic scalars");
      graph_->addSymInput(name, spec.kind, spec.sym_expr, hintOf(spec.sym_expr));
      return;
    }
    std::string target;
    bool persistent = true;
    std::shared_ptr<const TensorData> payload;
    if (kind != InputKind::User) {
      target = stringLiteral();
      if (kind == InputKind::Buffer && tryWord("nonpersistent"))
        persistent = false;
      if (tryChar('='))
        payload = data(spec);
      else
        failAt(at, "parameters, buffers and constants need their data (= dense<...>)");
    }
    graph_->addInput(kind, name, spec.dtype, spec.shape, target, payload, persistent)->setQuant(spec.quant);
  }

  int64_t hintOf(const std::string &expr) {
    if (expr.empty())
      return 0;
    try {
      return SymExpr::parse(expr).evaluate(hints_).value_or(0);
    } catch (const Error &) {
      return 0;
    }
  }

  void definition(std::size_t at) {
    // "%c = const TYPE DATA" or "%a: T, %b: T = [@name] op(args)"
    std::size_t save = pos_;
    std::string first = valueName();
    if (tryChar('=')) {
      expectWord("const");
      if (graph_->findValue(first))
        failAt(save, "redefinition of '%" + clipped(first) + "'");
      TypeSpec spec = type();
      if (spec.kind != ValueKind::Tensor)
        failAt(save, "constants must be tensors");
      graph_->addConstant(first, data(spec));
      if (graph_->constants().back()->name() != first)
        failAt(save, "constant name '%" + clipped(first) + "' is taken");
      graph_->constants().back()->setQuant(spec.quant);
      return;
    }
    std::vector<TensorTypeSpec> outs;
    std::vector<std::string> sym_exprs;
    pos_ = save;
    for (;;) {
      std::size_t name_at = pos_;
      skip();
      name_at = pos_;
      std::string name = valueName();
      if (graph_->findValue(name))
        failAt(name_at, "redefinition of '%" + clipped(name) + "'");
      expect(':');
      TypeSpec spec = type();
      outs.push_back(TensorTypeSpec{spec.kind, spec.dtype, spec.shape, name, spec.quant});
      sym_exprs.push_back(spec.sym_expr);
      if (tryChar('='))
        break;
      expect(',');
    }
    std::string node_name;
    if (tryChar('@'))
      node_name = ident();
    Node *n = call(std::move(outs), node_name, at);
    for (std::size_t i = 0; i < sym_exprs.size(); ++i)
      if (!sym_exprs[i].empty())
        n->output(i)->setSym(sym_exprs[i], hintOf(sym_exprs[i]));
  }

  Node *call(std::vector<TensorTypeSpec> outs, const std::string &node_name, std::size_t at) {
    skip();
    std::size_t op_at = pos_;
    std::string op_text = opName();
    auto op = OpKey::parse(op_text);
    if (!op)
      failAt(op_at, "'" + clipped(op_text) + "' is not an operator name");
    const OpSchema *schema = graph_->schemas() ? graph_->schemas()->find(*op) : nullptr;
    expect('(');
    std::vector<NamedArg> args;
    std::size_t positional = 0;
    if (!tryChar(')')) {
      for (;;) {
        skip();
        std::string name;
        // "name=value"
        std::size_t save = pos_;
        if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
          std::string word = ident();
          if (tryChar('=') && !peekChar('='))
            name = word;
          else
            pos_ = save;
        }
        const SchemaArgument *sa = nullptr;
        if (schema) {
          if (!name.empty()) {
            int idx = schema->argumentIndex(name);
            if (idx < 0)
              failAt(save, op->str() + " has no argument '" + clipped(name) + "'");
            sa = &schema->arguments[idx];
          } else if (positional < schema->arguments.size()) {
            sa = &schema->arguments[positional];
          }
        }
        if (name.empty())
          ++positional;
        args.push_back(NamedArg{name, coerce(sa, literal())});
        if (tryChar(')'))
          break;
        expect(',');
      }
    }
    try {
      return graph_->createNode(*op, std::move(args), std::move(outs), nullptr, node_name);
    } catch (const LocatedError &) {
      throw;
    } catch (const Error &e) {
      failAt(at, e.what());
    }
  }

  void returnLine() {
    // Items until the closing brace.
    if (peekChar('}'))
      return;
    for (;;) {
      GraphOutput out;
      if (tryWord("buffer_mutation")) {
        out.kind = OutputKind::BufferMutation;
        out.target = stringLiteral();
      } else if (tryWord("user_input_mutation")) {
        out.kind = OutputKind::UserInputMutation;
        out.target = stringLiteral();
      } else if (tryWord("parameter_mutation")) {
        out.kind = OutputKind::ParameterMutation;
        out.target = stringLiteral();
      } else if (tryWord("loss")) {
        out.kind = OutputKind::Loss;
      } else if (tryWord("token")) {
        out.kind = OutputKind::Token;
      }
      out.value = literal().value;
      graph_->addOutput(std::move(out));
      if (!tryChar(','))
        break;
    }
  }

  std::string_view text_;
  const ParseOptions &options_;
  std::size_t pos_ = 0;
  std::unique_ptr<Graph> graph_;
  std::map<std::string, int64_t> hints_;
};

} // namespace

std::unique_ptr<Graph> parseGraph(std::string_view text, const ParseOptions &options) {
  return Parser(text, options).parse();
}

} // namespace tico
