// Dim reorderings torch.export keeps whole, as the permute or transpose they stand for:
//   movedim / moveaxis(x, source, destination): each source dim goes to its destination, the
//     other dims keep their relative order in the remaining places (PyTorch's rule);
//   swapaxes / swapdims(x, a, b): transpose.
#include "layout_rules.h"

#include "type_rules.h"

#include <set>

namespace tico::decompose {

using passes::A;

namespace {

Replacement movedim(Builder &b, Node &n) {
  Value *x = n.input("self");
  const int64_t rank = x->rank();
  const std::optional<std::vector<int64_t>> source = staticInts(n.arg("source"));
  const std::optional<std::vector<int64_t>> destination = staticInts(n.arg("destination"));
  if (!source || !destination || source->size() != destination->size())
    return std::nullopt;
  if (rank == 0)
    return std::vector<Value *>{b.make("aten::clone.default", {A(x)})};
  std::vector<int64_t> perm(static_cast<std::size_t>(rank), -1);
  std::set<int64_t> moved;
  for (std::size_t i = 0; i < source->size(); ++i) {
    const int64_t from = normalizeDim((*source)[i], rank);
    const int64_t to = normalizeDim((*destination)[i], rank);
    if (!moved.insert(from).second || perm[static_cast<std::size_t>(to)] != -1)
      return std::nullopt; // repeated dims: PyTorch rejects the call
    perm[static_cast<std::size_t>(to)] = from;
  }
  int64_t next = 0;
  for (int64_t &slot : perm) {
    if (slot != -1)
      continue;
    while (moved.count(next))
      ++next;
    slot = next++;
  }
  return std::vector<Value *>{b.permute(x, perm)};
}

Replacement swapDims(Builder &b, Node &n, std::string_view first, std::string_view second) {
  Value *x = n.input("self");
  const std::optional<int64_t> d0 = passes::staticInt(n.arg(first));
  const std::optional<int64_t> d1 = passes::staticInt(n.arg(second));
  if (!d0 || !d1)
    return std::nullopt;
  return std::vector<Value *>{b.make("aten::transpose.int", {A(x), A(*d0), A(*d1)})};
}

} // namespace

std::vector<Rule> layoutReorderRules() {
  return {{"aten::movedim.int", movedim},
          {"aten::movedim.intlist", movedim},
          {"aten::moveaxis.int", movedim},
          {"aten::moveaxis.intlist", movedim},
          {"aten::swapaxes.default", [](Builder &b, Node &n) { return swapDims(b, n, "axis0", "axis1"); }},
          {"aten::swapdims.default", [](Builder &b, Node &n) { return swapDims(b, n, "dim0", "dim1"); }}};
}

} // namespace tico::decompose
