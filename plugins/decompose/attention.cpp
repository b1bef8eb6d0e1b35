// scaled_dot_product_attention becomes the math form PyTorch documents:
//   softmax(q @ k^T * scale + mask) @ v
// with scale = 1/sqrt(E) unless given, is_causal as an additive constant [L, S] mask (0 on and
// below the diagonal, -inf above), a boolean mask as where(mask, scores, -inf) and a float mask
// added. With a symbolic L or S the causal mask is built at run time from the sizes:
// where(col > row, -inf, 0) over row = iota(L)[:, None], col = iota(S)[None, :], each iota a
// slice [0, size) of a constant 0, 1, 2, ... as long as the symbol's export-time maximum (the
// way RoPE tables are sliced; no CUMSUM, which onert lacks), or an arange of the size when the
// symbol is unbounded. enable_gqa repeats each key/value head for its group of query heads. dropout_p > 0 is
// an error: sdpa applies dropout even in eval mode, which a converted model cannot reproduce.
#include "decomposition.h"

#include "tico/ir/shape_utils.h"
#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include <cmath>
#include <algorithm>
#include <limits>

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

// [B, Hk, S, E] -> [B, Hk * groups, S, E], each head repeated `groups` times in place.
Value *repeatHeads(Builder &b, Value *kv, int64_t groups) {
  Shape s = kv->shape();
  Value *u = b.make("aten::unsqueeze.default", {A(kv), A(int64_t{-3})});
  Shape expanded(s.begin(), s.end() - 2);
  expanded.push_back(Dim(groups));
  expanded.push_back(s[s.size() - 2]);
  expanded.push_back(s[s.size() - 1]);
  Value *e = b.expand(u, expanded, {kv});
  Shape merged(s.begin(), s.end() - 3);
  merged.push_back(mulDims(s[s.size() - 3], Dim(groups)));
  merged.push_back(s[s.size() - 2]);
  merged.push_back(s[s.size() - 1]);
  return e ? b.reshape(e, merged, {kv}) : nullptr;
}

// The additive causal mask [L, S] as a constant: 0 on and below the diagonal, -inf above.
Value *staticCausalMask(Builder &b, int64_t L, int64_t S) {
  std::vector<float> mask(static_cast<std::size_t>(L * S), 0.0f);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 1; j < S; ++j)
      mask[static_cast<std::size_t>(i * S + j)] = -std::numeric_limits<float>::infinity();
  return b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {L, S}, mask)), "_causal_mask");
}

// Longest constant iota the runtime causal mask slices from (float32: 256 KiB).
constexpr int64_t kMaxConstantIota = int64_t{1} << 16;

// The export-time upper bound of a dim: its value, or the maximum of its symbol.
std::optional<int64_t> upperBound(const Graph &graph, const Dim &size) {
  if (size.isStatic())
    return size.value();
  auto it = graph.symbols().find(size.expr());
  if (it == graph.symbols().end() || !it->second.max)
    return std::nullopt;
  return *it->second.max;
}

// 0, 1, ..., size - 1 as float32 [size], `size` being dim `d` of `source` at run time: a slice
// of `iota` (a constant at least that long) or, without one, an arange of the size.
Value *runtimeIota(Builder &b, Value *source, int64_t d, Value *iota) {
  const Dim &size = source->shape()[static_cast<std::size_t>(d)];
  if (iota == nullptr)
    return b.cast(b.make("aten::arange.default", {A(b.symSize(source, d))}), DType::Float32);
  Argument end = size.isStatic() ? A(size.value()) : A(b.symSize(source, d));
  // Typed explicitly: the slice is [0, size) of a longer tensor, so its length is `size`.
  return b.typed("aten::slice.Tensor",
                 {{"", A(iota)}, {"", A(int64_t{0})}, {"", A(int64_t{0})}, {"", std::move(end)}, {"", A(int64_t{1})}},
                 DType::Float32, Shape{size});
}

// The additive causal mask [L, S] of query `q` and key `k` (rank r, sequence dim r - 2) at run time.
Value *runtimeCausalMask(Builder &b, Value *q, Value *k) {
  const auto seq = static_cast<int64_t>(q->rank()) - 2;
  const std::optional<int64_t> l_max = upperBound(b.graph(), q->shape()[static_cast<std::size_t>(seq)]);
  const std::optional<int64_t> s_max = upperBound(b.graph(), k->shape()[static_cast<std::size_t>(seq)]);
  Value *iota = nullptr;
  if (l_max && s_max && std::max(*l_max, *s_max) >= 1 && std::max(*l_max, *s_max) <= kMaxConstantIota) {
    std::vector<float> values(static_cast<std::size_t>(std::max(*l_max, *s_max)));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<float>(i);
    const auto length = static_cast<int64_t>(values.size());
    iota = b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {length}, values)),
                      "_causal_iota");
  }
  Value *rows = b.make("aten::unsqueeze.default", {A(runtimeIota(b, q, seq, iota)), A(int64_t{-1})});
  Value *cols = b.make("aten::unsqueeze.default", {A(runtimeIota(b, k, seq, iota)), A(int64_t{0})});
  Value *above = b.make("aten::gt.Tensor", {A(cols), A(rows)});
  return b.make("aten::where.Scalar", {A(above), A(-std::numeric_limits<double>::infinity()), A(0.0)});
}

Replacement attention(Builder &b, Node &n) {
  Value *q = n.input("query");
  Value *k = n.input("key");
  Value *v = n.input("value");
  const std::size_t rank = q->rank();
  if (rank < 2 || k->rank() != rank || v->rank() != rank)
    return std::nullopt;
  const double dropout_p = numberArg(n, "dropout_p", 0.0);
  if (dropout_p != 0.0)
    throw Error("aten::scaled_dot_product_attention.default at node '" + n.name() + "' has dropout_p=" +
                std::to_string(dropout_p) + ", which applies random dropout even in eval mode; export with dropout_p=0");
  const Dim &e_dim = q->shape()[rank - 1];
  const Dim &l_dim = q->shape()[rank - 2];
  const Dim &s_dim = k->shape()[rank - 2];
  const Argument *scale_arg = n.findArg("scale");
  double scale = 0;
  if (scale_arg && !scale_arg->isNone())
    scale = scale_arg->asDouble();
  else if (e_dim.isStatic() && e_dim.value() > 0)
    scale = 1.0 / std::sqrt(static_cast<double>(e_dim.value()));
  else
    return std::nullopt;

  const Argument *gqa = n.findArg("enable_gqa");
  if (gqa && gqa->asBool() && rank >= 3) {
    const Dim &hq = q->shape()[rank - 3], &hk = k->shape()[rank - 3];
    if (!hq.isStatic() || !hk.isStatic() || hk.value() == 0 || hq.value() % hk.value() != 0)
      return std::nullopt;
    if (hq.value() != hk.value()) {
      k = repeatHeads(b, k, hq.value() / hk.value());
      v = repeatHeads(b, v, hq.value() / hk.value());
      if (!k || !v)
        return std::nullopt;
    }
  }

  Value *kt = b.make("aten::transpose.int", {A(k), A(int64_t{-2}), A(int64_t{-1})});
  Value *scores = b.mul(A(b.make("aten::matmul.default", {A(q), A(kt)})), A(scale));
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const Argument *causal = n.findArg("is_causal");
  if (causal && causal->asBool()) {
    Value *mask = l_dim.isStatic() && s_dim.isStatic() ? staticCausalMask(b, l_dim.value(), s_dim.value())
                                                       : runtimeCausalMask(b, q, k);
    scores = b.add(A(scores), A(mask));
  }
  if (Value *mask = optionalValue(n, "attn_mask")) {
    if (mask->dtype() == DType::Bool)
      scores = b.make("aten::where.ScalarOther", {A(mask), A(scores), A(neg_inf)});
    else
      scores = b.add(A(scores), A(mask));
  }
  Value *probs = b.make("aten::softmax.int", {A(scores), A(int64_t{-1})});
  return std::vector<Value *>{b.make("aten::matmul.default", {A(probs), A(v)})};
}

} // namespace

std::vector<Rule> attentionRules() { return {{"aten::scaled_dot_product_attention.default", attention}}; }

} // namespace tico::decompose
