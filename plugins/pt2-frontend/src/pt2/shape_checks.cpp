#include "pt2/shape_checks.h"

#include "tico/ir/node.h"
#include "tico/ir/value.h"
#include "tico/support/error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tico::pt2 {
namespace {

std::string shapeText(const Shape &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + (shape[i].isStatic() ? std::to_string(shape[i].value()) : shape[i].expr());
  return out + "]";
}

// Dimension `index` of `v` (negative from the end) when it is static.
std::optional<int64_t> dim(const Value *v, int64_t index) {
  if (!v)
    return std::nullopt;
  const Shape &s = v->shape();
  const int64_t rank = static_cast<int64_t>(s.size());
  const int64_t at = index < 0 ? rank + index : index;
  if (at < 0 || at >= rank || !s[static_cast<std::size_t>(at)].isStatic())
    return std::nullopt;
  return s[static_cast<std::size_t>(at)].value();
}

class Checker {
public:
  explicit Checker(const Node &node) : node_(node) {}

  // Dimension `ia` of `a` and dimension `ib` of `b` must be equal (when both are static).
  void same(const Value *a, int64_t ia, const Value *b, int64_t ib, const std::string &what) const {
    const auto x = dim(a, ia), y = dim(b, ib);
    if (x && y && *x != *y)
      fail(what + ": " + std::to_string(*x) + " against " + std::to_string(*y), a, b);
  }
  // Dimension `ia` of `a` must be `factor` times dimension `ib` of `b`.
  void times(const Value *a, int64_t ia, const Value *b, int64_t ib, int64_t factor, const std::string &what) const {
    const auto x = dim(a, ia), y = dim(b, ib);
    if (x && y && *x != *y * factor)
      fail(what + ": " + std::to_string(*x) + " against " + std::to_string(*y) +
               (factor != 1 ? " x " + std::to_string(factor) + " groups" : std::string()),
           a, b);
  }

private:
  [[noreturn]] void fail(const std::string &what, const Value *a, const Value *b) const {
    throw Error("node '" + node_.name() + "' (" + node_.op().str() + ") has shapes that do not fit: " + what + " ('" +
                a->name() + "' is " + shapeText(a->shape()) + ", '" + b->name() + "' is " + shapeText(b->shape()) +
                "); the program's recorded shapes are damaged or were edited");
  }
  const Node &node_;
};

std::optional<int64_t> intArg(const Node &node, std::size_t index) {
  if (index >= node.args().size() || !node.arg(index).isInt())
    return std::nullopt;
  return node.arg(index).asInt();
}

void checkNode(const Node &node) {
  const std::string op = node.op().str();
  const Checker c(node);
  const Value *out = node.outputs().empty() ? nullptr : node.output(0);
  auto in = [&](std::size_t i) -> const Value * {
    return i < node.args().size() && node.arg(i).isValue() ? node.input(i) : nullptr;
  };
  if (op == "aten::linear.default") {
    c.same(in(0), -1, in(1), 1, "input features against the weight's");
    if (out)
      c.same(out, -1, in(1), 0, "output features against the weight's rows");
  } else if (op == "aten::mm.default") {
    c.same(in(0), 1, in(1), 0, "inner dimensions");
    if (out) {
      c.same(out, 0, in(0), 0, "output rows");
      c.same(out, 1, in(1), 1, "output columns");
    }
  } else if (op == "aten::addmm.default") {
    c.same(in(1), 1, in(2), 0, "inner dimensions");
    if (out) {
      c.same(out, 0, in(1), 0, "output rows");
      c.same(out, 1, in(2), 1, "output columns");
    }
  } else if (op == "aten::bmm.default") {
    c.same(in(0), 0, in(1), 0, "batch sizes");
    c.same(in(0), 2, in(1), 1, "inner dimensions");
    if (out)
      c.same(out, 2, in(1), 2, "output columns");
  } else if (op == "aten::convolution.default" || op == "aten::conv2d.default" || op == "aten::conv1d.default" ||
             op == "aten::conv3d.default") {
    // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    // convNd(input, weight, bias, stride, padding, dilation, groups)
    const bool full = op == "aten::convolution.default";
    if (full) {
      if (node.args().size() < 9 || !node.arg(6).isBool() || node.arg(6).asBool())
        return; // transposed (the weight is [in, out / groups, ...]) or not the schema's form
    }
    const int64_t groups = intArg(node, full ? 8 : 6).value_or(1);
    if (groups <= 0)
      return;
    c.times(in(0), 1, in(1), 1, groups, "input channels against the weight's");
    if (out)
      c.same(out, 1, in(1), 0, "output channels against the weight's filters");
  }
}

} // namespace

void checkContractionShapes(const Graph &graph) {
  for (const auto &node : graph.nodes())
    checkNode(*node);
}

} // namespace tico::pt2
