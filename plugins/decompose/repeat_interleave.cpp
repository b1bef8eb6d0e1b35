// repeat_interleave(x, r, dim) with a static int r repeats each slice along dim r times in
// place (how Llama-style attention repeats key/value heads):
//   unsqueeze(x, dim + 1) -> expand that new dim to r -> reshape merging it into dim.
// dim=None (and a 0-d x) repeats the flattened tensor: reshape to [n, 1], expand, reshape.
#include "decomposition.h"

#include "tico/ir/shape_utils.h"
#include "type_rules.h"

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

Replacement repeatInterleave(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<int64_t> repeats = passes::staticInt(n.arg("repeats"));
  const Argument &dim_arg = n.arg("dim");
  if (!repeats || *repeats < 1)
    return std::nullopt;
  if (dim_arg.isNone() || x->rank() == 0) {
    // The flattened tensor, repeated along its one dim.
    if (!isStatic(x->shape()))
      return std::nullopt;
    const int64_t count = checkedProduct(hintSizes(x->shape()));
    Value *column = b.make("aten::reshape.default", {A(x), Ints({count, 1})});
    Value *wide = b.make("aten::expand.default", {A(column), Ints({count, *repeats})});
    return std::vector<Value *>{b.make("aten::reshape.default", {A(wide), Ints({count * *repeats})})};
  }
  const auto rank = static_cast<int64_t>(x->rank());
  const int64_t dim = normalizeDim(dim_arg.asInt(), rank);
  if (*repeats == 1)
    return std::vector<Value *>{x};
  const Shape &s = x->shape();
  Value *u = b.make("aten::unsqueeze.default", {A(x), A(dim + 1)});
  Shape expanded = s;
  expanded.insert(expanded.begin() + dim + 1, Dim(*repeats));
  Value *e = b.expand(u, expanded, {x});
  if (!e)
    return std::nullopt;
  Shape merged = s;
  merged[static_cast<std::size_t>(dim)] = mulDims(s[static_cast<std::size_t>(dim)], Dim(*repeats));
  Value *r = b.reshape(e, merged, {x});
  return r ? Replacement(std::vector<Value *>{r}) : std::nullopt;
}

} // namespace

std::vector<Rule> repeatInterleaveRules() { return {{"aten::repeat_interleave.self_int", repeatInterleave}}; }

} // namespace tico::decompose
