// pad with mode 'replicate' or 'circular' (Circle has PAD and MIRROR_PAD only) becomes, per
// padded dim, a cat of slices of the input: replicate repeats the edge element `before` times
// ahead of the input and `after` times behind it; circular puts the last `before` elements
// ahead and the first `after` behind. Needs static sizes along the padded dims and
// non-negative padding (a circular pad no wider than the dim, as PyTorch requires).
// Constant padding with negative entries (PAD cannot crop) becomes slices that crop those
// sides, then a constant_pad_nd with the non-negative rest.
#include "decomposition.h"

#include <algorithm>

namespace tico::decompose {

using passes::A;

namespace {

Value *sliceOf(Builder &b, Value *x, int64_t dim, int64_t begin, int64_t end) {
  return b.make("aten::slice.Tensor", {A(x), A(dim), A(begin), A(end), A(int64_t{1})});
}

// constant_pad_nd / pad(mode='constant') with negative entries: crop, then pad the rest.
Replacement cropThenPad(Builder &b, Node &n) {
  Value *x = n.input("self");
  const Argument &pad_arg = n.arg("pad");
  if (!pad_arg.isIntList())
    return std::nullopt;
  const std::vector<int64_t> &pads = pad_arg.asInts();
  const int64_t rank = x->rank();
  if (pads.size() % 2 != 0 || static_cast<int64_t>(pads.size() / 2) > rank ||
      std::none_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; }))
    return std::nullopt;
  for (std::size_t i = 0; i < pads.size() / 2; ++i) {
    const Dim &size = x->shape()[static_cast<std::size_t>(rank - 1 - static_cast<int64_t>(i))];
    const int64_t crop = std::max<int64_t>(0, -pads[2 * i]) + std::max<int64_t>(0, -pads[2 * i + 1]);
    if (crop > 0 && (!size.isStatic() || crop > size.value()))
      return std::nullopt;
  }
  Value *v = x;
  std::vector<int64_t> rest;
  for (std::size_t i = 0; i < pads.size() / 2; ++i) {
    const int64_t dim = rank - 1 - static_cast<int64_t>(i);
    const int64_t before = pads[2 * i], after = pads[2 * i + 1];
    if (before < 0 || after < 0) {
      const int64_t size = v->shape()[static_cast<std::size_t>(dim)].value();
      v = sliceOf(b, v, dim, std::max<int64_t>(0, -before), size - std::max<int64_t>(0, -after));
    }
    rest.push_back(std::max<int64_t>(0, before));
    rest.push_back(std::max<int64_t>(0, after));
  }
  if (std::all_of(rest.begin(), rest.end(), [](int64_t p) { return p == 0; }))
    return std::vector<Value *>{v};
  const Argument *value = n.findArg("value");
  const double fill = value == nullptr || value->isNone() ? 0.0 : value->asDouble();
  return std::vector<Value *>{b.make("aten::constant_pad_nd.default", {A(v), passes::Ints(rest), A(fill)})};
}

Replacement padByCopies(Builder &b, Node &n) {
  const Argument *mode_arg = n.findArg("mode");
  if (mode_arg == nullptr || mode_arg->kind() != Argument::Kind::String)
    return std::nullopt;
  const std::string &mode = mode_arg->asString();
  if (mode == "constant")
    return cropThenPad(b, n);
  if (mode != "replicate" && mode != "circular")
    return std::nullopt;
  Value *x = n.input("self");
  const Argument &pad_arg = n.arg("pad");
  if (!pad_arg.isIntList())
    return std::nullopt;
  const std::vector<int64_t> &pads = pad_arg.asInts();
  const int64_t rank = x->rank();
  if (pads.size() % 2 != 0 || static_cast<int64_t>(pads.size() / 2) > rank)
    return std::nullopt;
  // Validate every padded dim before creating any node.
  for (std::size_t i = 0; i < pads.size() / 2; ++i) {
    const Dim &size = x->shape()[static_cast<std::size_t>(rank - 1 - static_cast<int64_t>(i))];
    const int64_t before = pads[2 * i], after = pads[2 * i + 1];
    if (before < 0 || after < 0 || !size.isStatic() || size.value() == 0)
      return std::nullopt;
    if (mode == "circular" && (before > size.value() || after > size.value()))
      return std::nullopt;
  }
  Value *v = x;
  for (std::size_t i = 0; i < pads.size() / 2; ++i) { // PyTorch lists the last dim first
    const int64_t dim = rank - 1 - static_cast<int64_t>(i);
    const int64_t before = pads[2 * i], after = pads[2 * i + 1];
    if (before == 0 && after == 0)
      continue;
    const int64_t size = v->shape()[static_cast<std::size_t>(dim)].value();
    std::vector<Value *> pieces;
    if (mode == "replicate") {
      Value *first = before > 0 ? sliceOf(b, v, dim, 0, 1) : nullptr;
      Value *last = after > 0 ? sliceOf(b, v, dim, size - 1, size) : nullptr;
      pieces.insert(pieces.end(), static_cast<std::size_t>(before), first);
      pieces.push_back(v);
      pieces.insert(pieces.end(), static_cast<std::size_t>(after), last);
    } else {
      if (before > 0)
        pieces.push_back(sliceOf(b, v, dim, size - before, size));
      pieces.push_back(v);
      if (after > 0)
        pieces.push_back(sliceOf(b, v, dim, 0, after));
    }
    v = b.make("aten::cat.default", {Argument::values(pieces), A(dim)});
  }
  return std::vector<Value *>{v};
}

} // namespace

std::vector<Rule> padWindowRules() {
  return {{"aten::pad.default", padByCopies}, {"aten::constant_pad_nd.default", cropThenPad}};
}

} // namespace tico::decompose
