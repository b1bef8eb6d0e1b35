// chunk(x, n, dim) becomes one slice per output: pieces of ceil(size / n) along dim, the last
// one shorter (PyTorch's rule; the number of pieces is the node's output count, which export
// fixed). Needs a static size along dim.
#include "decomposition.h"

#include "type_rules.h"

#include <algorithm>

namespace tico::decompose {

using passes::A;

namespace {

Replacement chunk(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<int64_t> chunks = passes::staticInt(n.arg("chunks"));
  if (x->rank() == 0 || !chunks || *chunks < 1)
    return std::nullopt;
  const int64_t dim = normalizeDim(passes::staticInt(n.arg("dim")).value_or(0), static_cast<int64_t>(x->rank()));
  const Dim &size_dim = x->shape()[static_cast<std::size_t>(dim)];
  if (!size_dim.isStatic())
    return std::nullopt;
  const int64_t size = size_dim.value();
  const int64_t piece = (size + *chunks - 1) / *chunks;
  std::vector<Value *> out;
  for (std::size_t i = 0; i < n.numOutputs(); ++i) {
    const int64_t begin = static_cast<int64_t>(i) * piece;
    if (begin >= size && size > 0)
      return std::nullopt; // more outputs than pieces: not a graph export writes
    const int64_t end = std::min(begin + piece, size);
    out.push_back(b.make("aten::slice.Tensor", {A(x), A(dim), A(begin), A(end), A(int64_t{1})}));
  }
  return out;
}

} // namespace

std::vector<Rule> chunkRules() {
  return {{"aten::chunk.default", chunk}, {"aten::unsafe_chunk.default", chunk}};
}

} // namespace tico::decompose
