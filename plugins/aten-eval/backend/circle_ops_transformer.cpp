// Circle's transformer extension ops: RMS_NORM, ROPE and onert's fused decoder ATTENTION, with
// the semantics of their Circle kernels (core/interpreter/src/kernels/{rms_norm,rope,attention}.cpp).
#include "circle_ops.h"

#include <cmath>

namespace tico::aten_eval {
namespace {

// GPT-NeoX pairs (i, i + D/2): rotate_half(x) = cat(-x[D/2:], x[:D/2]).
at::Tensor rotateHalf(const at::Tensor &x) {
  const int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// GPT-J pairs (2i, 2i + 1): (a, b) -> (-b, a).
at::Tensor rotateNeighbours(const at::Tensor &x) {
  at::Tensor pairs = x.unflatten(-1, {x.size(-1) / 2, 2});
  return at::stack({-pairs.select(-1, 1), pairs.select(-1, 0)}, -1).flatten(-2);
}

} // namespace

// x / sqrt(mean(x^2, last dim) + eps) * weight; circle::rms_norm's weight may be absent (1).
at::Tensor circleRmsNorm(CircleArgs &args) {
  at::Tensor x = args.tensor("input");
  if (x.dim() < 1)
    throw args.error("RMS_NORM of a 0-D tensor");
  at::Tensor y = x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + args.real("eps"));
  if (std::optional<at::Tensor> w = args.optionalTensor("weight"))
    return y * *w;
  return y;
}

// input * cos + rotate(input) * sin, the tables broadcasting against the input; mode 0 is
// GPT-NeoX (rotate_half), 1 GPT-J (neighbouring pairs).
at::Tensor circleRope(CircleArgs &args) {
  at::Tensor x = args.tensor("input");
  at::Tensor sin = args.tensor("sin");
  at::Tensor cos = args.tensor("cos");
  if (x.dim() < 1 || x.size(-1) % 2 != 0)
    throw args.error("ROPE needs an input whose last dim is even");
  for (const at::Tensor *t : {&sin, &cos})
    if (t->dim() < 1 || t->size(-1) != x.size(-1) || t->dim() > x.dim())
      throw args.error("ROPE's sin/cos tables must end in the input's last dim " + std::to_string(x.size(-1)) +
                       " and have at most its rank");
  const int64_t mode = args.integer("mode");
  if (mode == 0)
    return x * cos + rotateHalf(x) * sin;
  if (mode == 1)
    return x * cos + rotateNeighbours(x) * sin;
  throw args.error("ROPE mode " + std::to_string(mode) + " is neither 0 (GPT-NeoX) nor 1 (GPT-J)");
}

// One decoder self-attention block (see kernels/attention.cpp for the operand layouts):
//   q, k, v = x wq^T, x wk^T, x wv^T in heads of dh (the tables' last dim); q, k rotated by
//   GPT-NeoX RoPE with the token's cos/sin row; with a cache, k/v of token t overwrite row
//   cache_position[t] of a copy of past_key/past_value ([B, C, Hkv, dh]) and the keys are its
//   rows [0, L), L the mask's last dim (max(cache_position) + 1 without one); query head h
//   uses key/value head h / (Hq / Hkv); softmax(q k^T / sqrt(dh) + mask) v; output . wo^T.
at::Tensor circleAttention(CircleArgs &args) {
  at::Tensor x = args.tensor("hidden_states");
  at::Tensor wq = args.tensor("wq"), wk = args.tensor("wk"), wv = args.tensor("wv"), wo = args.tensor("wo");
  at::Tensor cos = args.tensor("position_cos"), sin = args.tensor("position_sin");
  std::optional<at::Tensor> mask = args.optionalTensor("attention_mask");
  std::optional<at::Tensor> past_key = args.optionalTensor("past_key");
  std::optional<at::Tensor> past_value = args.optionalTensor("past_value");
  std::optional<at::Tensor> positions = args.optionalTensor("cache_position");
  if (x.dim() != 3)
    throw args.error("hidden_states must be [batch, tokens, hidden]");
  const int64_t B = x.size(0), T = x.size(1), D = x.size(2);
  if (cos.dim() < 1 || cos.dim() > 3 || cos.sizes() != sin.sizes())
    throw args.error("position_cos and position_sin must have one shape of rank 1 to 3");
  const int64_t dh = cos.size(-1);
  if (dh <= 0 || dh % 2 != 0)
    throw args.error("the head size (last dim of position_cos) must be even");
  for (const at::Tensor *w : {&wq, &wk, &wv})
    if (w->dim() != 2 || w->size(1) != D || w->size(0) % dh != 0)
      throw args.error("projection weights must be [heads * " + std::to_string(dh) + ", " + std::to_string(D) + "]");
  const int64_t Hq = wq.size(0) / dh, Hkv = wk.size(0) / dh;
  if (wv.sizes() != wk.sizes() || Hkv == 0 || Hq % Hkv != 0)
    throw args.error("wk and wv must match and the query heads must be a multiple of the key/value heads");
  if (wo.dim() != 2 || wo.size(1) != Hq * dh)
    throw args.error("wo must be [out, " + std::to_string(Hq * dh) + "]");

  // [B, T, heads, dh]; the tables broadcast to [B, T, 1, dh].
  at::Tensor c = cos.dim() == 1 ? cos : cos.unsqueeze(-2);
  at::Tensor s = sin.dim() == 1 ? sin : sin.unsqueeze(-2);
  auto project = [&](const at::Tensor &w, int64_t heads) { return at::matmul(x, w.t()).view({B, T, heads, dh}); };
  at::Tensor q = project(wq, Hq), k = project(wk, Hkv), v = project(wv, Hkv);
  q = q * c + rotateHalf(q) * s;
  k = k * c + rotateHalf(k) * s;

  at::Tensor keys = k, values = v; // [B, L, Hkv, dh]
  if (past_key || past_value) {
    if (!past_key || !past_value || !positions)
      throw args.error("a cache needs past_key, past_value and cache_position");
    if (past_key->dim() != 4 || past_key->size(0) != B || past_key->size(2) != Hkv || past_key->size(3) != dh ||
        past_value->sizes() != past_key->sizes())
      throw args.error("past_key and past_value must be [" + std::to_string(B) + ", cache, " + std::to_string(Hkv) +
                       ", " + std::to_string(dh) + "]");
    at::Tensor pos = positions->to(at::kLong).reshape({-1});
    if (pos.numel() != T)
      throw args.error("cache_position must have one value per token");
    const int64_t L = mask ? mask->size(-1) : pos.max().item<int64_t>() + 1;
    if (L < 1 || L > past_key->size(1) || pos.min().item<int64_t>() < 0 || pos.max().item<int64_t>() >= L)
      throw args.error("cache_position or the attended length is outside the cache");
    keys = past_key->narrow(1, 0, L).clone().index_copy_(1, pos, k);
    values = past_value->narrow(1, 0, L).clone().index_copy_(1, pos, v);
  } else if (mask && mask->size(-1) != T) {
    throw args.error("without a cache the mask's last dim must be the token count");
  }

  const int64_t group = Hq / Hkv;
  at::Tensor qh = q.permute({0, 2, 1, 3});                                  // [B, Hq, T, dh]
  at::Tensor kh = keys.permute({0, 2, 1, 3}).repeat_interleave(group, 1);   // [B, Hq, L, dh]
  at::Tensor vh = values.permute({0, 2, 1, 3}).repeat_interleave(group, 1); // [B, Hq, L, dh]
  at::Tensor scores = at::matmul(qh, kh.transpose(-1, -2)) * (1.0 / std::sqrt(static_cast<double>(dh)));
  if (mask)
    scores = scores + *mask;
  at::Tensor context = at::matmul(at::softmax(scores, -1), vh).permute({0, 2, 1, 3}).reshape({B, T, Hq * dh});
  return at::matmul(context, wo.t());
}

} // namespace tico::aten_eval
