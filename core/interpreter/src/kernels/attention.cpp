// ATTENTION (Circle extension): one decoder self-attention block with rotary embeddings and a
// key/value cache, the operator TICO emits for circle_custom.attention and onert executes.
//
// Inputs (float32 unless noted; -1 marks an omitted optional input):
//   0 hidden_states [B, T, D]
//   1 wq [Hq * dh, D], 2 wk [Hkv * dh, D], 3 wv [Hkv * dh, D]   (nn.Linear layout, no bias)
//   4 wo [D_out, Hq * dh]
//   5 position_cos, 6 position_sin: rows of dh values whose leading dims broadcast to [B, T]
//     ([1, T, dh], [B, T, dh], [T, dh], [1, 1, dh], ...); dh is their last dim
//   7 attention_mask (optional): additive, broadcasts to [B, Hq, T, L]
//   8 past_key, 9 past_value (optional, together): [B, C, Hkv, dh] (onert's cache layout)
//   10 cache_position (int32/int64, T values; needed with a cache): cache row of each new token
// Semantics:
//   q, k, v = x wq^T, x wk^T, x wv^T, split into heads of dh; q and k rotated (GPT_NEOX RoPE)
//   by the token's cos/sin row. With a cache, k/v of token t are written to row
//   cache_position[t] of a copy of the cache, and the keys are its rows [0, L) with L the
//   mask's last dim (max(cache_position) + 1 without a mask); without a cache the keys are
//   the T new tokens (L = T). Query head h uses key/value head h / (Hq / Hkv).
//   scores = q k^T / sqrt(dh) + mask; softmax over L; heads concatenated; output = . wo^T,
//   shape [B, T, D_out].
// The cache inputs are not modified (onert updates its cache buffers in place; a caller of this
// interpreter passes the cache it wants each time).
#include "buffer_pool.h"
#include "gemm.h"
#include "kernels/registrations.h"
#include "kernels/rope.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace tico::interp {
namespace {

// Strides (0 where broadcast) of a tensor whose shape right-aligns against `target`.
std::vector<int64_t> broadcastStrides(const Shape &shape, const Shape &target) {
  std::vector<int64_t> strides(target.size(), 0);
  int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[target.size() - shape.size() + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

const Tensor &floatInput(KernelContext &ctx, std::size_t i, const char *name) {
  const Tensor &t = ctx.input(i);
  check(t.dtype == DType::Float32, std::string(name) + " must be float32, got " + dtypeString(t.dtype));
  return t;
}

void runAttention(KernelContext &ctx) {
  const Tensor &hidden = floatInput(ctx, 0, "hidden_states");
  const Tensor &wq = floatInput(ctx, 1, "wq");
  const Tensor &wk = floatInput(ctx, 2, "wk");
  const Tensor &wv = floatInput(ctx, 3, "wv");
  const Tensor &wo = floatInput(ctx, 4, "wo");
  const Tensor &cos = floatInput(ctx, 5, "position_cos");
  const Tensor &sin = floatInput(ctx, 6, "position_sin");
  check(hidden.rank() == 3, "hidden_states must be [batch, tokens, hidden], got shape " + shapeString(hidden.shape));
  const int64_t B = hidden.dim(0), T = hidden.dim(1), D = hidden.dim(2);
  check(cos.rank() >= 1 && cos.rank() <= 3 && cos.shape == sin.shape,
        "position_cos " + shapeString(cos.shape) + " and position_sin " + shapeString(sin.shape) +
            " must have one shape of rank 1 to 3");
  const int64_t dh = cos.shape.back();
  check(dh > 0 && dh % 2 == 0, "the head size (last dim of position_cos) must be even, got " + std::to_string(dh));
  for (const Tensor *w : {&wq, &wk, &wv})
    check(w->rank() == 2 && w->dim(1) == D && w->dim(0) % dh == 0,
          "projection weights must be [heads * " + std::to_string(dh) + ", " + std::to_string(D) + "], got " +
              shapeString(w->shape));
  const int64_t Hq = wq.dim(0) / dh, Hkv = wk.dim(0) / dh;
  check(wv.dim(0) == wk.dim(0), "wk " + shapeString(wk.shape) + " and wv " + shapeString(wv.shape) + " differ");
  check(Hkv > 0 && Hq % Hkv == 0, std::to_string(Hq) + " query heads cannot share " + std::to_string(Hkv) +
                                      " key/value heads");
  check(wo.rank() == 2 && wo.dim(1) == Hq * dh,
        "wo must be [out, " + std::to_string(Hq * dh) + "], got " + shapeString(wo.shape));
  const Shape token_rows{B, T};
  check(broadcastShapes(token_rows, Shape(cos.shape.begin(), cos.shape.end() - 1)) == token_rows,
        "position_cos " + shapeString(cos.shape) + " does not broadcast to [" + std::to_string(B) + ", " +
            std::to_string(T) + ", " + std::to_string(dh) + "]");
  const std::vector<int64_t> table_strides = broadcastStrides(Shape(cos.shape.begin(), cos.shape.end() - 1), token_rows);

  // Projections, [B * T, heads * dh].
  ScratchArray<float> q(static_cast<std::size_t>(B * T * Hq * dh)), k(static_cast<std::size_t>(B * T * Hkv * dh)),
      v(k.size());
  gemmNT(B * T, Hq * dh, D, hidden.as<float>(), D, wq.as<float>(), D, q.data(), Hq * dh);
  gemmNT(B * T, Hkv * dh, D, hidden.as<float>(), D, wk.as<float>(), D, k.data(), Hkv * dh);
  gemmNT(B * T, Hkv * dh, D, hidden.as<float>(), D, wv.as<float>(), D, v.data(), Hkv * dh);

  // Rotary embedding of q and k, per token and head.
  std::vector<float> rotated(static_cast<std::size_t>(dh));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t row = b * table_strides[0] + t * table_strides[1];
      const float *c = cos.as<float>() + row * dh;
      const float *s = sin.as<float>() + row * dh;
      for (auto [data, heads] : {std::pair{&q, Hq}, std::pair{&k, Hkv}})
        for (int64_t h = 0; h < heads; ++h) {
          float *x = data->data() + ((b * T + t) * heads + h) * dh;
          rotateRow(circle::RoPEMode::GPT_NEOX, x, s, c, rotated.data(), dh);
          std::copy(rotated.begin(), rotated.end(), x);
        }
    }

  // Keys and values as [B, L, Hkv, dh].
  const bool cached = ctx.present(8) || ctx.present(9);
  const Tensor *mask = ctx.present(7) ? &floatInput(ctx, 7, "attention_mask") : nullptr;
  int64_t L = T;
  ScratchArray<float> keys, values;
  if (cached) {
    const Tensor &past_key = floatInput(ctx, 8, "past_key");
    const Tensor &past_value = floatInput(ctx, 9, "past_value");
    check(past_key.rank() == 4 && past_key.dim(0) == B && past_key.dim(2) == Hkv && past_key.dim(3) == dh,
          "past_key must be [" + std::to_string(B) + ", cache, " + std::to_string(Hkv) + ", " + std::to_string(dh) +
              "], got " + shapeString(past_key.shape));
    check(past_value.shape == past_key.shape, "past_value " + shapeString(past_value.shape) +
                                                  " differs from past_key " + shapeString(past_key.shape));
    const int64_t C = past_key.dim(1);
    const Tensor &positions = ctx.input(10);
    check(positions.numel() == T, "cache_position has " + std::to_string(positions.numel()) + " values for " +
                                      std::to_string(T) + " tokens");
    std::vector<int64_t> pos = integerValues(positions);
    L = mask ? mask->shape.back() : *std::max_element(pos.begin(), pos.end()) + 1;
    check(L >= 1 && L <= C, "the attended length " + std::to_string(L) + " (the mask's last dim) exceeds the cache size " +
                                std::to_string(C));
    for (int64_t p : pos)
      check(p >= 0 && p < L, "cache_position " + std::to_string(p) + " is outside the attended range [0, " +
                                 std::to_string(L) + ")");
    const int64_t row = Hkv * dh;
    keys = ScratchArray<float>(static_cast<std::size_t>(B * L * row));
    values = ScratchArray<float>(keys.size());
    for (int64_t b = 0; b < B; ++b) {
      std::memcpy(keys.data() + b * L * row, past_key.as<float>() + b * C * row,
                  static_cast<std::size_t>(L * row) * sizeof(float));
      std::memcpy(values.data() + b * L * row, past_value.as<float>() + b * C * row,
                  static_cast<std::size_t>(L * row) * sizeof(float));
      for (int64_t t = 0; t < T; ++t) {
        std::copy_n(k.data() + (b * T + t) * row, row, keys.data() + (b * L + pos[static_cast<std::size_t>(t)]) * row);
        std::copy_n(v.data() + (b * T + t) * row, row, values.data() + (b * L + pos[static_cast<std::size_t>(t)]) * row);
      }
    }
  } else {
    check(!ctx.present(10) || ctx.input(10).numel() == T, "cache_position without a cache must have T values");
    if (mask)
      check(mask->shape.back() == T, "without a cache the mask's last dim must be the token count " +
                                         std::to_string(T) + ", got " + shapeString(mask->shape));
    keys = std::move(k);
    values = std::move(v);
  }
  const Shape score_shape{B, Hq, T, L};
  std::vector<int64_t> mask_strides;
  if (mask) {
    check(mask->rank() <= 4 && broadcastShapes(mask->shape, score_shape) == score_shape,
          "attention_mask " + shapeString(mask->shape) + " does not broadcast to " + shapeString(score_shape));
    mask_strides = broadcastStrides(mask->shape, score_shape);
  }

  // Scores, softmax and the weighted sum of values, per (batch, head, token).
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const int64_t group = Hq / Hkv;
  ScratchArray<float> context(static_cast<std::size_t>(B * T * Hq * dh));
  std::fill(context.begin(), context.end(), 0.0f); // accumulated below
  std::vector<float> scores(static_cast<std::size_t>(L));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t t = 0; t < T; ++t) {
        const float *query = q.data() + ((b * T + t) * Hq + h) * dh;
        const int64_t kv = h / group;
        float max = -INFINITY;
        for (int64_t l = 0; l < L; ++l) {
          const float *key = keys.data() + ((b * L + l) * Hkv + kv) * dh;
          float dot = 0.0f;
          for (int64_t i = 0; i < dh; ++i)
            dot += query[i] * key[i];
          float s = dot * scale;
          if (mask)
            s += mask->as<float>()[b * mask_strides[0] + h * mask_strides[1] + t * mask_strides[2] + l * mask_strides[3]];
          scores[static_cast<std::size_t>(l)] = s;
          max = std::max(max, s);
        }
        double sum = 0.0;
        for (float &s : scores) {
          s = std::exp(s - max);
          sum += s;
        }
        float *out = context.data() + ((b * T + t) * Hq + h) * dh;
        for (int64_t l = 0; l < L; ++l) {
          const float p = static_cast<float>(scores[static_cast<std::size_t>(l)] / sum);
          const float *value = values.data() + ((b * L + l) * Hkv + kv) * dh;
          for (int64_t i = 0; i < dh; ++i)
            out[i] += p * value[i];
        }
      }

  Tensor &out = ctx.allocateOutput(0, DType::Float32, {B, T, wo.dim(0)});
  gemmNT(B * T, wo.dim(0), Hq * dh, context.data(), Hq * dh, wo.as<float>(), Hq * dh, out.mut<float>(), wo.dim(0));
}

std::string checkAttention(const OpSignature &op) {
  if (op.inputCount() != 11)
    return "expects 11 inputs, has " + std::to_string(op.inputCount());
  return requireInputType(op, 0, {DType::Float32});
}

} // namespace

void registerAttentionKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::ATTENTION, runAttention, checkAttention);
}

} // namespace tico::interp
