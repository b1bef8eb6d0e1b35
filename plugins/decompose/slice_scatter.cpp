// decompose-slice-scatter (DecomposeSliceScatter): slice_scatter(input, src, dim, start, end,
// step) becomes a cat of slices of input and src along dim. Positions are walked once and
// consecutive positions taken from the same tensor become one slice, so step 1 gives at most
// three pieces (input before, src, input after). Needs a static size along dim.
#include "decomposition.h"

#include "type_rules.h"

#include <algorithm>

namespace tico::decompose {

using passes::A;

namespace {

struct Piece {
  Value *from;
  int64_t begin, end, step; // a slice of `from` along the scattered dim
};

Replacement decomposeSliceScatter(Builder &b, Node &n) {
  Value *input = n.input("self");
  Value *src = n.input("src");
  const int64_t rank = static_cast<int64_t>(input->rank());
  if (rank == 0)
    return std::nullopt;
  const int64_t dim = normalizeDim(passes::staticInt(n.arg("dim")).value_or(0), rank);
  const Dim &size_dim = input->shape()[static_cast<std::size_t>(dim)];
  if (!size_dim.isStatic())
    return std::nullopt;
  const int64_t size = size_dim.value();
  auto bound = [&](std::string_view name, int64_t fallback) -> std::optional<int64_t> {
    const Argument &arg = n.arg(name);
    if (arg.isNone())
      return fallback;
    std::optional<int64_t> v = passes::staticInt(arg);
    if (!v)
      return std::nullopt;
    int64_t x = *v < 0 ? *v + size : *v;
    return std::clamp<int64_t>(x, 0, size);
  };
  std::optional<int64_t> start = bound("start", 0), end = bound("end", size);
  std::optional<int64_t> step = passes::staticInt(n.arg("step"));
  if (!start || !end || !step || *step < 1)
    return std::nullopt;

  // Which tensor and which index each output position comes from; runs become slices.
  std::vector<Piece> pieces;
  for (int64_t i = 0; i < size; ++i) {
    const bool scattered = i >= *start && i < *end && (i - *start) % *step == 0;
    Value *from = scattered ? src : input;
    const int64_t index = scattered ? (i - *start) / *step : i;
    if (!pieces.empty() && pieces.back().from == from && pieces.back().end == index) {
      ++pieces.back().end;
      continue;
    }
    pieces.push_back(Piece{from, index, index + 1, 1});
  }
  std::vector<Value *> parts;
  for (const Piece &p : pieces) {
    const Dim &from_size = p.from->shape()[static_cast<std::size_t>(dim)];
    if (p.begin == 0 && from_size.isStatic() && from_size.value() == p.end) {
      parts.push_back(p.from); // the whole tensor along dim
      continue;
    }
    parts.push_back(b.make("aten::slice.Tensor", {A(p.from), A(dim), A(p.begin), A(p.end), A(int64_t{1})}));
  }
  if (parts.size() == 1)
    return std::vector<Value *>{parts.front()};
  return std::vector<Value *>{b.make("aten::cat.default", {Argument::values(parts), A(dim)})};
}

} // namespace

std::vector<Rule> sliceScatterRules() { return {{"aten::slice_scatter.default", decomposeSliceScatter}}; }

} // namespace tico::decompose
