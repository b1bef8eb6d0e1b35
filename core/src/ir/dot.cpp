#include "tico/ir/dot.h"

#include <sstream>
#include <unordered_map>

namespace tico {
namespace {

// Graphviz double-quoted string escaping.
std::string esc(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string typeLabel(const Value &v) {
  if (v.kind() != ValueKind::Tensor)
    return v.symExpr().empty() ? "sym" : "sym " + v.symExpr();
  return std::string(dtypeName(v.dtype())) + shapeString(v.shape());
}

const char *inputLabel(InputKind kind) {
  switch (kind) {
  case InputKind::User:
    return "input";
  case InputKind::Parameter:
    return "param";
  case InputKind::Buffer:
    return "buffer";
  case InputKind::Constant:
    return "constant";
  default:
    return "input";
  }
}

} // namespace

std::string printDot(const Graph &graph, const DotOptions &options) {
  std::ostringstream os;
  os << "digraph \"" << esc(graph.name) << "\" {\n";
  os << "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"" << esc(options.title.empty() ? graph.name : options.title)
     << "\", labelloc=t];\n";
  os << "  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n";

  // Every value gets the id of the DOT node that defines it.
  std::unordered_map<const Value *, std::string> source;
  std::size_t next_id = 0;
  auto newId = [&](const char *prefix) { return std::string(prefix) + std::to_string(next_id++); };

  for (const auto &in : graph.inputs()) {
    if (in.kind == InputKind::ConstantInput || !in.value)
      continue;
    bool constant = in.value->isConstant();
    if (constant && !options.show_constants)
      continue;
    std::string id = newId("i");
    source[in.value] = id;
    os << "  " << id << " [shape=" << (constant ? "note" : "ellipse") << ", style=filled, fillcolor=\""
       << (constant ? "#eeeeee" : "#d5e8d4") << "\", label=\"" << inputLabel(in.kind) << " %" << esc(in.value->name())
       << "\\n" << esc(typeLabel(*in.value)) << (in.target.empty() ? "" : "\\n" + esc(in.target)) << "\"];\n";
  }
  if (options.show_constants)
    for (const Value *c : graph.constants()) {
      std::string id = newId("c");
      source[c] = id;
      os << "  " << id << " [shape=note, style=filled, fillcolor=\"#eeeeee\", label=\"const %" << esc(c->name())
         << "\\n" << esc(typeLabel(*c)) << "\"];\n";
    }
  for (const auto &n : graph.nodes()) {
    std::string id = newId("n");
    os << "  " << id << " [shape=box, style=\"rounded,filled\", fillcolor=\"#dae8fc\", label=\"" << esc(n->op().str())
       << "\\n" << esc(n->name()) << "\"];\n";
    for (const auto &a : n->args())
      for (const Value *v : a.value.referencedValues()) {
        auto it = source.find(v);
        if (it == source.end())
          continue; // a hidden constant
        os << "  " << it->second << " -> " << id << " [label=\"" << esc(typeLabel(*v)) << "\"];\n";
      }
    for (const Value *o : n->outputs())
      source[o] = id;
  }
  std::size_t index = 0;
  for (const auto &o : graph.outputs()) {
    std::string id = newId("o");
    os << "  " << id << " [shape=ellipse, style=filled, fillcolor=\"#f8cecc\", label=\"output " << index++ << "\"];\n";
    for (const Value *v : o.value.referencedValues()) {
      auto it = source.find(v);
      if (it != source.end())
        os << "  " << it->second << " -> " << id << " [label=\"" << esc(typeLabel(*v)) << "\"];\n";
    }
  }
  os << "}\n";
  return os.str();
}

} // namespace tico
