// scaled_dot_product_attention becomes the math form PyTorch documents:
//   softmax(q @ k^T * scale + mask) @ v
// with scale = 1/sqrt(E) unless given, is_causal as an additive constant [L, S] mask (0 on and
// below the diagonal, -inf above), a boolean mask as where(mask, scores, -inf) and a float mask
// added. enable_gqa repeats each key/value head for its group of query heads. dropout_p > 0 is
// an error: sdpa applies dropout even in eval mode, which a converted model cannot reproduce.
#include "decomposition.h"

#include "dims.h"
#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include <cmath>
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
  merged.push_back(passes::mulDims(s[s.size() - 3], Dim(groups)));
  merged.push_back(s[s.size() - 2]);
  merged.push_back(s[s.size() - 1]);
  return e ? b.reshape(e, merged, {kv}) : nullptr;
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
    if (!l_dim.isStatic() || !s_dim.isStatic())
      return std::nullopt;
    const int64_t L = l_dim.value(), S = s_dim.value();
    std::vector<float> mask(static_cast<std::size_t>(L * S), 0.0f);
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = i + 1; j < S; ++j)
        mask[static_cast<std::size_t>(i * S + j)] = -std::numeric_limits<float>::infinity();
    Value *m = b.constant("causal_mask", std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {L, S}, mask)));
    scores = b.add(A(scores), A(m));
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
