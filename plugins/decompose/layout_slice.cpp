// Slicing ops torch.export keeps whole, rewritten into slice (and cat):
//   narrow(x, dim, start, length) = x[start : start + length] along dim, a negative start
//     counting from the end (PyTorch's rule); a symbolic start or length is left alone (the
//     slice type rule cannot bound a symbolic end).
//   roll(x, shifts, dims): per rolled dim d with size n and shift s (taken modulo n),
//     cat([x[n - s : n], x[0 : n - s]], d); without dims, x is rolled flattened (reshape to
//     1-D, roll, reshape back). Sizes along rolled dims must be static.
//   diff(x, n, dim, prepend, append): cat([prepend, x, append], dim), then n times
//     x[1:] - x[:-1] along dim (!= for bool, as PyTorch computes it); a symbolic dim works
//     (the slices are size - 1).
#include "layout_rules.h"

#include "tico/ir/shape_utils.h"
#include "type_rules.h"

namespace tico::decompose {

using passes::A;

namespace {

Value *slice(Builder &b, Value *x, int64_t dim, Argument begin, Argument end) {
  return b.make("aten::slice.Tensor", {A(x), A(dim), std::move(begin), std::move(end), A(int64_t{1})});
}

Replacement narrow(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() == 0)
    return std::nullopt;
  const int64_t dim = normalizeDim(n.arg("dim").asInt(), x->rank());
  const std::optional<int64_t> start = passes::staticInt(n.arg("start"));
  const std::optional<int64_t> length = passes::staticInt(n.arg("length"));
  if (!start || !length || *length < 0)
    return std::nullopt;
  int64_t begin = *start;
  if (begin < 0) {
    const Dim &size = x->shape()[static_cast<std::size_t>(dim)];
    if (!size.isStatic())
      return std::nullopt;
    begin += size.value();
  }
  return std::vector<Value *>{slice(b, x, dim, A(begin), A(begin + *length))};
}

// x rolled by `shift` along `dim` (static size); x itself when the shift is a whole turn.
Value *rollDim(Builder &b, Value *x, int64_t dim, int64_t shift) {
  const int64_t size = x->shape()[static_cast<std::size_t>(dim)].value();
  const int64_t s = size == 0 ? 0 : ((shift % size) + size) % size;
  if (s == 0)
    return x;
  Value *tail = slice(b, x, dim, A(size - s), A(size));
  Value *head = slice(b, x, dim, A(int64_t{0}), A(size - s));
  return b.make("aten::cat.default", {Argument::values({tail, head}), A(dim)});
}

Replacement diff(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() == 0)
    return std::nullopt;
  const int64_t dim = normalizeDim(n.arg("dim").asInt(), x->rank());
  const std::optional<int64_t> times = passes::staticInt(n.arg("n"));
  if (!times || *times < 0)
    return std::nullopt;
  std::vector<Value *> parts;
  for (const char *name : {"prepend", "self", "append"})
    if (Value *part = optionalValue(n, name))
      parts.push_back(part);
  Value *out = parts.size() == 1 ? x : b.make("aten::cat.default", {Argument::values(parts), A(dim)});
  for (int64_t i = 0; i < *times; ++i) {
    Value *upper = slice(b, out, dim, A(int64_t{1}), A(INT64_MAX));
    Value *lower = slice(b, out, dim, A(int64_t{0}), A(int64_t{-1}));
    out = out->dtype() == DType::Bool ? b.make("aten::ne.Tensor", {A(upper), A(lower)}) : b.sub(A(upper), A(lower));
  }
  return std::vector<Value *>{out};
}

Replacement roll(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<std::vector<int64_t>> shifts = staticInts(n.arg("shifts"));
  const Argument *dims_arg = n.findArg("dims");
  std::optional<std::vector<int64_t>> dims = std::vector<int64_t>{};
  if (dims_arg != nullptr && !dims_arg->isNone())
    dims = staticInts(*dims_arg);
  if (!shifts || !dims)
    return std::nullopt;
  if (x->rank() == 0) // one element: every roll is the identity
    return std::vector<Value *>{b.make("aten::alias.default", {A(x)})};
  Value *out = x;
  if (dims->empty()) {
    // PyTorch rolls the flattened tensor by a single shift and restores the shape.
    if (shifts->size() != 1 || x->rank() == 0)
      return std::nullopt;
    for (const Dim &d : x->shape())
      if (!d.isStatic())
        return std::nullopt;
    const Shape flat{productOf(x->shape())};
    Value *line = b.reshape(x, flat);
    if (line == nullptr)
      return std::nullopt;
    Value *rolled = rollDim(b, line, 0, (*shifts)[0]);
    out = rolled == line ? x : b.reshape(rolled, x->shape());
    if (out == nullptr)
      return std::nullopt;
  } else {
    if (shifts->size() != dims->size())
      return std::nullopt;
    for (std::size_t i = 0; i < dims->size(); ++i) {
      const int64_t dim = normalizeDim((*dims)[i], x->rank());
      if (!x->shape()[static_cast<std::size_t>(dim)].isStatic())
        return std::nullopt;
      out = rollDim(b, out, dim, (*shifts)[i]);
    }
  }
  if (out == x) // every shift a whole turn: still a fresh tensor, as roll returns
    out = b.make("aten::clone.default", {A(x)});
  return std::vector<Value *>{out};
}

} // namespace

std::vector<Rule> layoutSliceRules() {
  return {{"aten::diff.default", diff}, {"aten::narrow.default", narrow}, {"aten::roll.default", roll}};
}

} // namespace tico::decompose
