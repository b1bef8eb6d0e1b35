#include "pt2/shape_checks.h"

#include "tico/ir/node.h"
#include "tico/ir/value.h"
#include "tico/support/error.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tico::pt2 {
namespace {

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

  [[noreturn]] void fail(const std::string &what, const Value *a, const Value *b) const {
    throw Error("node '" + node_.name() + "' (" + node_.op().str() + ") has shapes that do not fit: " + what + " ('" +
                a->name() + "' is " + shapeString(a->shape()) + ", '" + b->name() + "' is " + shapeString(b->shape()) +
                "); the program's recorded shapes are damaged or were edited");
  }
private:
  const Node &node_;
};

// The element count of a fully static shape.
std::optional<int64_t> staticCount(const Value *v) {
  if (!v || !v->isTensor() || !isStatic(v->shape()))
    return std::nullopt;
  return numElementsHint(v->shape());
}

const Value *tensorOrNull(const Value *v) { return v && v->isTensor() ? v : nullptr; }

// Elementwise ops whose tensor operands broadcast against each other (numpy rules) into the output.
bool broadcasts(const std::string &op) {
  static const std::set<std::string> ops = {
      "aten::add.Tensor",           "aten::sub.Tensor",           "aten::mul.Tensor",
      "aten::div.Tensor",           "aten::div.Tensor_mode",      "aten::maximum.default",
      "aten::minimum.default",      "aten::pow.Tensor_Tensor",    "aten::where.self",
      "aten::eq.Tensor",            "aten::ne.Tensor",            "aten::lt.Tensor",
      "aten::le.Tensor",            "aten::gt.Tensor",            "aten::ge.Tensor",
      "aten::logical_and.default",  "aten::logical_or.default",   "aten::logical_xor.default",
      "aten::bitwise_and.Tensor",   "aten::bitwise_or.Tensor",    "aten::bitwise_xor.Tensor",
      "aten::atan2.default",        "aten::remainder.Tensor",     "aten::fmod.Tensor",
      "aten::floor_divide.default", "aten::masked_fill.Tensor",   "aten::masked_fill.Scalar",
      "aten::squared_difference.default"};
  return ops.count(op) != 0;
}

// Each dimension (aligned from the right) of the tensor operands is 1 or the output's. Unless
// `new_sizes` (expand), an output dimension that no operand has, or has only as 1, is 1.
void checkBroadcast(const Checker &c, const std::vector<const Value *> &operands, const Value *out,
                    bool new_sizes = false) {
  if (!out || !out->isTensor())
    return;
  const int64_t rank = static_cast<int64_t>(out->shape().size());
  for (const Value *in : operands) {
    if (!in)
      continue;
    const int64_t in_rank = static_cast<int64_t>(in->shape().size());
    if (in_rank > rank) {
      c.fail("an operand of rank " + std::to_string(in_rank) + " broadcast into an output of rank " +
                 std::to_string(rank),
             in, out);
    }
    for (int64_t k = 1; k <= in_rank; ++k) {
      const auto x = dim(in, -k), y = dim(out, -k);
      if (x && y && *x != 1 && *x != *y)
        c.fail("dimension " + std::to_string(rank - k) + " of an operand (" + std::to_string(*x) +
                   ") neither is 1 nor matches the output's (" + std::to_string(*y) + ")",
               in, out);
    }
  }
  for (int64_t k = 1; !new_sizes && k <= rank; ++k) {
    const auto y = dim(out, -k);
    if (!y || *y == 1)
      continue;
    bool produced = false;
    for (const Value *in : operands) {
      if (!in || static_cast<int64_t>(in->shape().size()) < k) {
        continue;
      }
      const auto x = dim(in, -k);
      if (!x || *x != 1)
        produced = true;
    }
    if (!produced && !operands.empty() && operands.front())
      c.fail("output dimension " + std::to_string(rank - k) + " is " + std::to_string(*y) +
                 " but every operand has 1 or nothing there",
             operands.front(), out);
  }
}

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
  } else if (broadcasts(op)) {
    std::vector<const Value *> operands;
    for (std::size_t i = 0; i < node.args().size(); ++i)
      if (const Value *v = tensorOrNull(in(i)))
        operands.push_back(v);
    checkBroadcast(c, operands, out);
  } else if (op == "aten::view.default" || op == "aten::reshape.default" || op == "aten::_unsafe_view.default" ||
             op == "aten::view_copy.default") {
    const auto x = staticCount(tensorOrNull(in(0))), y = staticCount(tensorOrNull(out));
    if (x && y && *x != *y)
      c.fail("a reshape from " + std::to_string(*x) + " elements to " + std::to_string(*y), in(0), out);
  } else if (op == "aten::permute.default" || op == "aten::permute_copy.default") {
    const Value *x = tensorOrNull(in(0));
    if (!x || !out || node.args().size() < 2 || !node.arg(1).isIntList())
      return;
    const auto &perm = node.arg(1).asInts();
    const int64_t rank = static_cast<int64_t>(x->shape().size());
    if (static_cast<int64_t>(perm.size()) != rank || static_cast<int64_t>(out->shape().size()) != rank) {
      c.fail("a permutation of " + std::to_string(perm.size()) + " dimensions", x, out);
    }
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t from = perm[static_cast<std::size_t>(i)] < 0 ? perm[static_cast<std::size_t>(i)] + rank
                                                                 : perm[static_cast<std::size_t>(i)];
      if (from < 0 || from >= rank)
        return; // the lowering reports a bad permutation
      c.same(out, i, x, from, "output dimension " + std::to_string(i) + " against input dimension " +
                                  std::to_string(from));
    }
  } else if (op == "aten::expand.default" || op == "aten::expand_copy.default") {
    if (const Value *x = tensorOrNull(in(0)))
      checkBroadcast(c, {x}, tensorOrNull(out), /*new_sizes=*/true);
  } else if (op == "aten::cat.default" || op == "aten::concat.default") {
    if (!out || !out->isTensor() || node.args().empty() || node.arg(0).kind() != Argument::Kind::ValueList)
      return;
    const int64_t rank = static_cast<int64_t>(out->shape().size());
    int64_t axis = intArg(node, 1).value_or(0);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return;
    std::optional<int64_t> total = 0;
    for (const Value *part : node.arg(0).asValues()) {
      if (!part || !part->isTensor())
        return;
      const Shape &shape = part->shape();
      if (shape.size() == 1 && shape[0].isStatic() && shape[0].value() == 0)
        continue; // torch.cat skips 1-D empty tensors of any rank
      if (static_cast<int64_t>(shape.size()) != rank)
        c.fail("a part of rank " + std::to_string(shape.size()) + " in a concatenation of rank " +
                   std::to_string(rank),
               part, out);
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          c.same(part, d, out, d, "dimension " + std::to_string(d) + " of a part against the output's");
      const auto n = dim(part, axis);
      total = total && n ? std::optional<int64_t>(*total + *n) : std::nullopt;
    }
    if (const auto y = dim(out, axis); total && y && *total != *y)
      c.fail("the parts' dimension " + std::to_string(axis) + " adds up to " + std::to_string(*total) +
                 ", the output's is " + std::to_string(*y),
             node.arg(0).asValues().front(), out);
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

void checkRecordedShapes(const Graph &graph) {
  for (const auto &node : graph.nodes())
    checkNode(*node);
}

} // namespace tico::pt2
