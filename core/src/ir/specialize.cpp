// Symbol binding (tico/ir/specialize.h).
#include "tico/ir/specialize.h"

#include "tico/ir/sym_expr.h"
#include "tico/support/error.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace tico {
namespace {

std::optional<int64_t> parseCount(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    return std::nullopt;
  return value;
}

std::optional<int64_t> evaluate(const std::string &expr, const std::map<std::string, int64_t> &bindings) {
  return SymExpr::parse(expr).evaluate(bindings);
}

std::string joinNames(const std::vector<Value *> &values) {
  std::string out;
  for (const Value *v : values)
    out += (out.empty() ? "'" : ", '") + v->name() + "'";
  return out;
}

// The argument standing for symbolic scalar `sym` once it is known to be `size`: a number where
// a Value stood, the element made constant inside a SymInt[] list.
Argument bound(const Argument &arg, const std::map<Value *, int64_t> &known) {
  if (arg.kind() == Argument::Kind::Value) {
    auto it = known.find(arg.asValue());
    return it == known.end() ? arg : Argument::integer(it->second);
  }
  // A list of symbolic integers alone reads like a Tensor[] where no schema says otherwise
  // ("[%n]" in textual IR): it is a SymInt[] when every element is a symbolic integer.
  if (arg.kind() == Argument::Kind::ValueList && !arg.asValues().empty() &&
      std::all_of(arg.asValues().begin(), arg.asValues().end(),
                  [](const Value *v) { return v && v->kind() == ValueKind::SymInt; }) &&
      std::any_of(arg.asValues().begin(), arg.asValues().end(), [&](Value *v) { return known.count(v) > 0; })) {
    std::vector<SymIntElem> elems;
    for (Value *v : arg.asValues()) {
      auto it = known.find(v);
      elems.push_back(it == known.end() ? SymIntElem{0, v} : SymIntElem{it->second, nullptr});
    }
    return Argument::symInts(std::move(elems));
  }
  if (arg.kind() == Argument::Kind::SymIntList) {
    std::vector<SymIntElem> elems = arg.asSymInts();
    for (SymIntElem &e : elems) {
      auto it = e.sym ? known.find(e.sym) : known.end();
      if (it != known.end())
        e = SymIntElem{it->second, nullptr};
    }
    return Argument::symInts(std::move(elems)); // an IntList once nothing is symbolic
  }
  return arg;
}

} // namespace

InputDimSize parseInputDimSize(const std::string &text) {
  const auto eq = text.rfind('=');
  const auto dot = text.rfind('.', eq == std::string::npos ? std::string::npos : eq);
  const auto malformed = [&] {
    return Error("'" + text + "' is not INPUT.DIM=SIZE (e.g. input_ids.1=128: dimension 1 of input 'input_ids' is 128)");
  };
  if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot > eq)
    throw malformed();
  auto dim = parseCount(std::string_view(text).substr(dot + 1, eq - dot - 1));
  auto size = parseCount(std::string_view(text).substr(eq + 1));
  if (!dim || !size)
    throw malformed();
  return {text.substr(0, dot), *dim, *size};
}

std::map<std::string, int64_t> bindingsForInputSizes(const Graph &graph, const std::vector<InputDimSize> &sizes) {
  std::map<std::string, int64_t> bindings;
  const std::vector<Value *> users = graph.userInputs();
  for (const InputDimSize &request : sizes) {
    Value *input = nullptr;
    for (Value *v : users)
      if (v->name() == request.input)
        input = v;
    if (!input)
      throw Error("no user input '" + request.input + "' (user inputs: " + joinNames(users) + ")");
    const std::string where = "input '" + request.input + "' dimension " + std::to_string(request.dim);
    if (request.dim >= input->rank())
      throw Error(where + ": the input has rank " + std::to_string(input->rank()));
    const Dim &dim = input->shape()[static_cast<std::size_t>(request.dim)];
    if (dim.isStatic()) {
      if (dim.value() != request.size)
        throw Error(where + " is static (" + std::to_string(dim.value()) + "), not " + std::to_string(request.size));
      continue;
    }
    const SymExpr expr = SymExpr::parse(dim.expr());
    if (!expr.isSymbol())
      throw Error(where + " is '" + dim.expr() + "', an expression; only a dimension that is one symbol can be given a size");
    const std::string symbol = expr.str();
    auto range = graph.symbols().find(symbol);
    if (range != graph.symbols().end()) {
      const SymbolRange &r = range->second;
      if (request.size < r.min || (r.max && request.size > *r.max))
        throw Error(where + " (" + symbol + ") = " + std::to_string(request.size) + " is outside the exported range [" +
                    std::to_string(r.min) + ", " + (r.max ? std::to_string(*r.max) : std::string("inf")) + "]");
    }
    auto [it, fresh] = bindings.emplace(symbol, request.size);
    if (!fresh && it->second != request.size)
      throw Error(where + " is " + symbol + ", already given the size " + std::to_string(it->second) + ", not " +
                  std::to_string(request.size));
  }
  return bindings;
}

std::size_t specializeSymbols(Graph &graph, const std::map<std::string, int64_t> &bindings) {
  if (bindings.empty())
    return 0;
  std::size_t changed = 0;
  // Shapes: every symbolic dimension the bindings determine becomes its number.
  auto retype = [&](Value *v) {
    if (!v || !v->isTensor())
      return;
    Shape shape = v->shape();
    bool any = false;
    for (Dim &d : shape) {
      if (!d.isSymbolic())
        continue;
      if (auto n = evaluate(d.expr(), bindings)) {
        d = Dim(*n);
        any = true;
      }
    }
    if (any) {
      v->setType(v->dtype(), std::move(shape));
      ++changed;
    }
  };
  // Symbolic integers the bindings determine, to be replaced by numbers where they are read.
  std::map<Value *, int64_t> known;
  auto noteScalar = [&](Value *v) {
    if (v && v->kind() == ValueKind::SymInt && !v->symExpr().empty())
      if (auto n = evaluate(v->symExpr(), bindings))
        known.emplace(v, *n);
  };
  for (const GraphInput &in : graph.inputs()) {
    retype(in.value);
    noteScalar(in.value);
  }
  for (const auto &node : graph.nodes())
    for (Value *out : node->outputs()) {
      retype(out);
      noteScalar(out);
    }
  for (const auto &node : graph.nodes())
    for (std::size_t i = 0; i < node->numArgs(); ++i) {
      Argument replaced = bound(node->arg(i), known);
      if (!(replaced == node->arg(i)))
        node->setArg(i, std::move(replaced));
    }
  for (std::size_t i = 0; i < graph.outputs().size(); ++i) {
    Argument replaced = bound(graph.outputs()[i].value, known);
    if (!(replaced == graph.outputs()[i].value))
      graph.setOutputValue(i, std::move(replaced));
  }
  changed += known.size();
  graph.removeDeadNodes();
  for (const auto &[symbol, size] : bindings) {
    auto range = graph.symbols().find(symbol);
    if (range != graph.symbols().end())
      range->second = SymbolRange{size, size};
  }
  return changed;
}

} // namespace tico
