#include "pt2/value_types.h"

#include "tico/ir/sym_expr.h"
#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <algorithm>
#include <charconv>

namespace tico::pt2 {
namespace {

const Json *objectField(const Json &obj, std::string_view key, const std::string &context) {
  const Json *f = optionalField(obj, key);
  if (f)
    asObject(*f, context + " " + std::string(key));
  return f;
}

std::optional<int64_t> integerText(const std::string &text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return v;
}

// Reads a SymExpr object {expr_str, hint} into infix text and a hint.
std::pair<std::string, std::optional<int64_t>> readExpr(const Json &expr, const std::string &context) {
  const std::string &srepr = asString(field(expr, "expr_str", context), context + " expr_str");
  std::string infix;
  try {
    infix = SymExpr::fromSympySrepr(srepr);
  } catch (const Error &e) {
    throw Error(context + ": cannot read symbolic expression \"" + srepr + "\": " + e.what());
  }
  std::optional<int64_t> hint;
  if (const Json *h = optionalField(expr, "hint")) {
    auto [variant, value] = unionVariant(*h, context + " hint");
    if (variant == "as_int")
      hint = asInt(*value, context + " hint");
    else if (variant == "as_bool")
      hint = asBool(*value, context + " hint") ? 1 : 0;
    else if (variant == "as_float")
      hint = static_cast<int64_t>(asFloat(*value, context + " hint"));
    else
      throw Error(context + ": unknown hint variant '" + variant + "'");
  }
  return {std::move(infix), hint};
}

} // namespace

ValueTypes::ValueTypes(const Json &graph, const std::map<std::string, SymbolRange> &symbols)
    : symbols_(symbols) {
  tensors_ = objectField(graph, "tensor_values", "graph");
  sym_ints_ = objectField(graph, "sym_int_values", "graph");
  sym_floats_ = objectField(graph, "sym_float_values", "graph");
  sym_bools_ = objectField(graph, "sym_bool_values", "graph");
}

Dim ValueTypes::dim(const Json &sym_int, const std::string &context) const {
  auto [variant, value] = unionVariant(sym_int, context);
  if (variant == "as_int")
    return Dim(asInt(*value, context));
  if (variant != "as_expr")
    throw Error(context + ": unknown SymInt variant '" + variant + "'");
  auto [infix, hint] = readExpr(*value, context);
  if (auto fixed = integerText(infix))
    return Dim(*fixed);
  if (!hint) {
    // Unbacked symbols (data-dependent sizes) have no example value; their lower bound (a
    // size is never negative) is the most honest stand-in.
    auto range = symbols_.find(infix);
    hint = range != symbols_.end() ? std::max<int64_t>(range->second.min, 0) : 0;
  }
  return Dim::symbolic(std::move(infix), *hint);
}

Shape ValueTypes::shape(const Json &sizes, const std::string &context) const {
  Shape out;
  for (const Json &d : asArray(sizes, context))
    out.push_back(dim(d, context));
  return out;
}

TensorTypeSpec ValueTypes::tensor(const std::string &name, const std::string &context) const {
  if (!isTensor(name))
    throw Error(context + ": tensor '" + clipped(name) + "' has no entry in graph.tensor_values");
  const std::string where = context + ": tensor '" + clipped(name) + "'";
  const Json &meta = asObject(tensors_->at(name), where);
  TensorTypeSpec spec;
  spec.kind = ValueKind::Tensor;
  spec.name = name;
  spec.dtype = scalarTypeFromCode(asInt(field(meta, "dtype", where), where + " dtype"), where);
  spec.shape = shape(field(meta, "sizes", where), where + " sizes");
  if (const Json *layout = optionalField(meta, "layout")) {
    Layout l = layoutFromCode(asInt(*layout, where + " layout"), where);
    if (l != Layout::Strided && l != Layout::Unknown)
      throw Error(where + ": sparse and mkldnn layouts are not supported (layout code " + layout->dump() + ")");
  }
  return spec;
}

ValueTypes::Scalar ValueTypes::scalar(const std::string &name, ValueKind kind, const std::string &context) const {
  const Json *table = kind == ValueKind::SymInt ? sym_ints_ : kind == ValueKind::SymFloat ? sym_floats_ : sym_bools_;
  const char *table_name = kind == ValueKind::SymInt     ? "sym_int_values"
                           : kind == ValueKind::SymFloat ? "sym_float_values"
                                                         : "sym_bool_values";
  if (!table || !table->contains(name))
    throw Error(context + ": symbolic value '" + name + "' has no entry in graph." + table_name);
  const std::string where = std::string(table_name) + " '" + name + "'";
  Scalar out;
  out.type.kind = kind;
  out.type.name = name;
  out.type.dtype = kind == ValueKind::SymInt ? DType::Int64 : kind == ValueKind::SymFloat ? DType::Float64 : DType::Bool;
  auto [variant, value] = unionVariant(table->at(name), where);
  if (variant == "as_expr") {
    auto [infix, hint] = readExpr(*value, where);
    out.expr = std::move(infix);
    out.hint = hint.value_or(0);
  } else if (variant == "as_int" && kind == ValueKind::SymInt) {
    out.hint = asInt(*value, where);
    out.expr = std::to_string(out.hint);
  } else if (variant == "as_bool" && kind == ValueKind::SymBool) {
    out.hint = asBool(*value, where) ? 1 : 0;
    out.expr = out.hint ? "1" : "0";
  } else if (variant == "as_float" && kind == ValueKind::SymFloat) {
    double v = asFloat(*value, where);
    out.hint = static_cast<int64_t>(v);
    out.expr = Json(v).dump();
  } else {
    throw Error(where + ": unknown variant '" + variant + "'");
  }
  return out;
}

} // namespace tico::pt2
