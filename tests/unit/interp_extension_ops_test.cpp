// Interpreter: the Circle extension operators RMS_NORM, ROPE, INSTANCE_NORM and ATTENTION,
// each against a reference of its documented semantics (docs/interpreter.md) written here in
// a different formulation from the kernel (rotate_half for RoPE, whole-tensor steps for
// attention), in double precision.
#include "interp_test_support.h"

#include <algorithm>

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

TEST(InterpRmsNorm, NormalisesTheLastAxisAndScales) {
  // Hand check: x = [3, 4] -> mean square 12.5, eps 0 -> x / sqrt(12.5) * [1, 2]
  circle::RmsNormOptionsT options;
  options.epsilon = 0.0f;
  auto out = runSingle({B::RMS_NORM, ModelBuilder::options(options), {f32({1, 2}, {3, 4}), f32({2}, {1, 2})}}).at(0);
  expectFloats(*out, {3.0f / std::sqrt(12.5f), 8.0f / std::sqrt(12.5f)});
}

TEST(InterpRmsNorm, RandomRank3AgainstReference) {
  const int64_t rows = 2 * 5, depth = 64;
  const auto x = randomFloats(static_cast<std::size_t>(rows * depth), 100);
  const auto w = randomFloats(static_cast<std::size_t>(depth), 101);
  circle::RmsNormOptionsT options;
  options.epsilon = 1e-6f;
  auto out = runSingle({B::RMS_NORM, ModelBuilder::options(options), {f32({2, 5, depth}, x), f32({depth}, w)}}).at(0);
  std::vector<float> expected;
  for (int64_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (int64_t i = 0; i < depth; ++i)
      ms += std::pow(static_cast<double>(x[static_cast<std::size_t>(r * depth + i)]), 2) / depth;
    for (int64_t i = 0; i < depth; ++i)
      expected.push_back(static_cast<float>(w[static_cast<std::size_t>(i)] * x[static_cast<std::size_t>(r * depth + i)] /
                                            std::sqrt(ms + 1e-6)));
  }
  expectFloats(*out, expected, 1e-5f);
  const std::string message = errorOf(
      [&] { runSingle({B::RMS_NORM, ModelBuilder::options(options), {f32({2, 5, depth}, x), f32({3}, {1, 2, 3})}}); });
  EXPECT_TRUE(contains(message, "RMS_NORM")) << message;
  EXPECT_TRUE(contains(message, "64 elements")) << message;
}

// RoPE reference: out = x * cos + rotate(x) * sin, with rotate_half (NeoX) or rotate_every_two
// (GPT-J); tables indexed [token][d], the same for every batch and head.
std::vector<float> referenceRope(const std::vector<float> &x, const std::vector<float> &sin,
                                 const std::vector<float> &cos, int64_t rows_per_token_block, int64_t tokens,
                                 int64_t depth, bool gpt_j, bool per_token) {
  std::vector<float> out(x.size());
  const int64_t half = depth / 2;
  for (int64_t block = 0; block < rows_per_token_block; ++block)
    for (int64_t t = 0; t < tokens; ++t) {
      const int64_t row = block * tokens + t, table = per_token ? t : 0;
      std::vector<double> rotated(static_cast<std::size_t>(depth));
      for (int64_t i = 0; i < depth; ++i) {
        const auto at = [&](int64_t j) { return static_cast<double>(x[static_cast<std::size_t>(row * depth + j)]); };
        if (gpt_j)
          rotated[static_cast<std::size_t>(i)] = i % 2 == 0 ? -at(i + 1) : at(i - 1);
        else
          rotated[static_cast<std::size_t>(i)] = i < half ? -at(i + half) : at(i - half);
      }
      for (int64_t i = 0; i < depth; ++i) {
        const auto k = static_cast<std::size_t>(table * depth + i);
        out[static_cast<std::size_t>(row * depth + i)] = static_cast<float>(
            x[static_cast<std::size_t>(row * depth + i)] * static_cast<double>(cos[k]) +
            rotated[static_cast<std::size_t>(i)] * sin[k]);
      }
    }
  return out;
}

// HuggingFace-style tables: each of depth/2 frequencies appears twice (NeoX: halves, GPT-J:
// neighbours).
void ropeTables(int64_t tokens, int64_t depth, bool gpt_j, std::vector<float> &sin, std::vector<float> &cos) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t i = 0; i < depth; ++i) {
      const int64_t f = gpt_j ? i / 2 : i % (depth / 2);
      const double angle = static_cast<double>(t + 3) * std::pow(10000.0, -2.0 * f / depth);
      sin.push_back(static_cast<float>(std::sin(angle)));
      cos.push_back(static_cast<float>(std::cos(angle)));
    }
}

TEST(InterpRope, NeoxAndGptJWithPerTokenTables) {
  const int64_t batch = 2, heads = 3, tokens = 4, depth = 8;
  const auto x = randomFloats(static_cast<std::size_t>(batch * heads * tokens * depth), 110);
  for (bool gpt_j : {false, true}) {
    std::vector<float> sin, cos;
    ropeTables(tokens, depth, gpt_j, sin, cos);
    circle::RoPEOptionsT options;
    options.mode = gpt_j ? circle::RoPEMode::GPT_J : circle::RoPEMode::GPT_NEOX;
    auto out = runSingle({B::ROPE,
                          ModelBuilder::options(options),
                          {f32({batch, heads, tokens, depth}, x), f32({1, 1, tokens, depth}, sin),
                           f32({1, 1, tokens, depth}, cos)}})
                   .at(0);
    expectShape(*out, {batch, heads, tokens, depth});
    expectFloats(*out, referenceRope(x, sin, cos, batch * heads, tokens, depth, gpt_j, true), 1e-6f,
                 gpt_j ? "GPT_J" : "GPT_NEOX");
  }
}

TEST(InterpRope, OneTableRowRotatesEveryToken) {
  // The form onert and luci-interpreter support: a single row for all tokens.
  const int64_t heads = 2, tokens = 3, depth = 4;
  const auto x = randomFloats(static_cast<std::size_t>(heads * tokens * depth), 120);
  std::vector<float> sin, cos;
  ropeTables(1, depth, false, sin, cos);
  auto out = runSingle({B::ROPE, {}, {f32({1, heads, tokens, depth}, x), f32({1, 1, 1, depth}, sin),
                                      f32({1, 1, 1, depth}, cos)}})
                 .at(0);
  expectFloats(*out, referenceRope(x, sin, cos, heads, tokens, depth, false, false), 1e-6f);
  const std::string message = errorOf([&] {
    runSingle({B::ROPE, {}, {f32({1, heads, tokens, depth}, x), f32({1, 1, 2, depth}, std::vector<float>(8, 0)),
                             f32({1, 1, 1, depth}, cos)}});
  });
  EXPECT_TRUE(contains(message, "sin_table [1, 1, 2, 4] does not broadcast")) << message;
}

TEST(InterpInstanceNorm, PerSampleAndChannelStatistics) {
  const int64_t N = 2, H = 3, W = 4, C = 5;
  const auto x = randomFloats(static_cast<std::size_t>(N * H * W * C), 130);
  const auto gamma = randomFloats(C, 131);
  const auto beta = randomFloats(C, 132);
  circle::InstanceNormOptionsT options;
  options.epsilon = 1e-5f;
  options.fused_activation_function = circle::ActivationFunctionType::RELU;
  auto out = runSingle({B::INSTANCE_NORM,
                        ModelBuilder::options(options),
                        {f32({N, H, W, C}, x), f32({C}, gamma), f32({C}, beta)}})
                 .at(0);
  std::vector<float> expected(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      std::vector<double> values;
      for (int64_t p = 0; p < H * W; ++p)
        values.push_back(x[static_cast<std::size_t>((n * H * W + p) * C + c)]);
      double mean = 0, var = 0;
      for (double v : values)
        mean += v / static_cast<double>(values.size());
      for (double v : values)
        var += (v - mean) * (v - mean) / static_cast<double>(values.size());
      for (int64_t p = 0; p < H * W; ++p) {
        const double y = gamma[static_cast<std::size_t>(c)] * (values[static_cast<std::size_t>(p)] - mean) /
                             std::sqrt(var + 1e-5) +
                         beta[static_cast<std::size_t>(c)];
        expected[static_cast<std::size_t>((n * H * W + p) * C + c)] = static_cast<float>(std::max(y, 0.0));
      }
    }
  expectFloats(*out, expected, 1e-5f);
}

// ---- ATTENTION ---------------------------------------------------------------------------

struct AttentionCase {
  int64_t B, T, D, Hq, Hkv, dh, cache; // cache 0 = no cache inputs
  std::vector<int64_t> positions;     // cache rows of the T tokens
  int64_t L;                          // attended length (mask last dim)
  bool with_mask;
};

// Whole-tensor reference: projections, rotate_half RoPE, cache update, per-head attention.
std::vector<float> referenceAttention(const AttentionCase &c, const std::vector<float> &x,
                                      const std::vector<float> &wq, const std::vector<float> &wk,
                                      const std::vector<float> &wv, const std::vector<float> &wo,
                                      const std::vector<float> &cos, const std::vector<float> &sin,
                                      const std::vector<float> &mask, const std::vector<float> &past_key,
                                      const std::vector<float> &past_value) {
  const auto project = [&](const std::vector<float> &w, int64_t rows) {
    std::vector<double> out(static_cast<std::size_t>(c.B * c.T * rows));
    for (int64_t bt = 0; bt < c.B * c.T; ++bt)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t d = 0; d < c.D; ++d)
          out[static_cast<std::size_t>(bt * rows + r)] +=
              static_cast<double>(x[static_cast<std::size_t>(bt * c.D + d)]) * w[static_cast<std::size_t>(r * c.D + d)];
    return out;
  };
  std::vector<double> q = project(wq, c.Hq * c.dh), k = project(wk, c.Hkv * c.dh), v = project(wv, c.Hkv * c.dh);
  const auto rope = [&](std::vector<double> &t, int64_t heads) {
    const int64_t half = c.dh / 2;
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t tok = 0; tok < c.T; ++tok)
        for (int64_t h = 0; h < heads; ++h) {
          double *row = t.data() + ((b * c.T + tok) * heads + h) * c.dh;
          std::vector<double> original(row, row + c.dh);
          for (int64_t i = 0; i < c.dh; ++i) {
            const double rotated = i < half ? -original[static_cast<std::size_t>(i + half)]
                                            : original[static_cast<std::size_t>(i - half)];
            const auto table = static_cast<std::size_t>(tok * c.dh + i); // cos/sin [1, T, dh]
            row[i] = original[static_cast<std::size_t>(i)] * cos[table] + rotated * sin[table];
          }
        }
  };
  rope(q, c.Hq);
  rope(k, c.Hkv);
  // Keys/values [B, L, Hkv, dh]
  const int64_t L = c.cache ? c.L : c.T;
  std::vector<double> keys(static_cast<std::size_t>(c.B * L * c.Hkv * c.dh)), values(keys.size());
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t l = 0; l < L; ++l)
      for (int64_t j = 0; j < c.Hkv * c.dh; ++j) {
        const auto at = static_cast<std::size_t>((b * L + l) * c.Hkv * c.dh + j);
        if (c.cache) {
          keys[at] = past_key[static_cast<std::size_t>((b * c.cache + l) * c.Hkv * c.dh + j)];
          values[at] = past_value[static_cast<std::size_t>((b * c.cache + l) * c.Hkv * c.dh + j)];
        } else {
          keys[at] = k[static_cast<std::size_t>((b * c.T + l) * c.Hkv * c.dh + j)];
          values[at] = v[static_cast<std::size_t>((b * c.T + l) * c.Hkv * c.dh + j)];
        }
      }
  if (c.cache)
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t tok = 0; tok < c.T; ++tok)
        for (int64_t j = 0; j < c.Hkv * c.dh; ++j) {
          const auto dst = static_cast<std::size_t>((b * L + c.positions[static_cast<std::size_t>(tok)]) * c.Hkv * c.dh + j);
          keys[dst] = k[static_cast<std::size_t>((b * c.T + tok) * c.Hkv * c.dh + j)];
          values[dst] = v[static_cast<std::size_t>((b * c.T + tok) * c.Hkv * c.dh + j)];
        }
  std::vector<double> context(static_cast<std::size_t>(c.B * c.T * c.Hq * c.dh));
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h)
      for (int64_t tok = 0; tok < c.T; ++tok) {
        const int64_t kv = h * c.Hkv / c.Hq;
        std::vector<double> weights(static_cast<std::size_t>(L));
        for (int64_t l = 0; l < L; ++l) {
          double s = 0;
          for (int64_t i = 0; i < c.dh; ++i)
            s += q[static_cast<std::size_t>(((b * c.T + tok) * c.Hq + h) * c.dh + i)] *
                 keys[static_cast<std::size_t>(((b * L + l) * c.Hkv + kv) * c.dh + i)];
          s /= std::sqrt(static_cast<double>(c.dh));
          if (c.with_mask) // mask [1, 1, T, L]
            s += mask[static_cast<std::size_t>(tok * L + l)];
          weights[static_cast<std::size_t>(l)] = s;
        }
        const double top = *std::max_element(weights.begin(), weights.end());
        double total = 0;
        for (double &w : weights)
          total += (w = std::exp(w - top));
        for (int64_t l = 0; l < L; ++l)
          for (int64_t i = 0; i < c.dh; ++i)
            context[static_cast<std::size_t>(((b * c.T + tok) * c.Hq + h) * c.dh + i)] +=
                weights[static_cast<std::size_t>(l)] / total *
                values[static_cast<std::size_t>(((b * L + l) * c.Hkv + kv) * c.dh + i)];
      }
  std::vector<float> out;
  for (int64_t bt = 0; bt < c.B * c.T; ++bt)
    for (int64_t r = 0; r < c.D; ++r) {
      double s = 0;
      for (int64_t j = 0; j < c.Hq * c.dh; ++j)
        s += context[static_cast<std::size_t>(bt * c.Hq * c.dh + j)] * wo[static_cast<std::size_t>(r * c.Hq * c.dh + j)];
      out.push_back(static_cast<float>(s));
    }
  return out;
}

void checkAttention(const AttentionCase &c, uint32_t seed) {
  const auto x = randomFloats(static_cast<std::size_t>(c.B * c.T * c.D), seed);
  const auto wq = randomFloats(static_cast<std::size_t>(c.Hq * c.dh * c.D), seed + 1);
  const auto wk = randomFloats(static_cast<std::size_t>(c.Hkv * c.dh * c.D), seed + 2);
  const auto wv = randomFloats(static_cast<std::size_t>(c.Hkv * c.dh * c.D), seed + 3);
  const auto wo = randomFloats(static_cast<std::size_t>(c.D * c.Hq * c.dh), seed + 4);
  std::vector<float> sin, cos;
  ropeTables(c.T, c.dh, false, sin, cos);
  const int64_t L = c.cache ? c.L : c.T;
  std::vector<float> mask(static_cast<std::size_t>(c.T * L), 0.0f);
  for (int64_t t = 0; t < c.T; ++t) // causal: a token sees cache rows up to its own position
    for (int64_t l = 0; l < L; ++l)
      if (l > (c.cache ? c.positions[static_cast<std::size_t>(t)] : t))
        mask[static_cast<std::size_t>(t * L + l)] = -INFINITY;
  const auto past_key = randomFloats(static_cast<std::size_t>(c.B * std::max<int64_t>(c.cache, 1) * c.Hkv * c.dh), seed + 5);
  const auto past_value = randomFloats(past_key.size(), seed + 6);

  std::vector<TensorPtr> inputs = {
      f32({c.B, c.T, c.D}, x),        f32({c.Hq * c.dh, c.D}, wq), f32({c.Hkv * c.dh, c.D}, wk),
      f32({c.Hkv * c.dh, c.D}, wv),   f32({c.D, c.Hq * c.dh}, wo), f32({1, c.T, c.dh}, cos),
      f32({1, c.T, c.dh}, sin),       c.with_mask ? f32({1, 1, c.T, L}, mask) : nullptr,
      c.cache ? f32({c.B, c.cache, c.Hkv, c.dh}, past_key) : nullptr,
      c.cache ? f32({c.B, c.cache, c.Hkv, c.dh}, past_value) : nullptr,
      c.cache ? i64({c.T}, c.positions) : nullptr};
  auto out = runSingle({B::ATTENTION, {}, inputs}).at(0);
  expectShape(*out, {c.B, c.T, c.D});
  expectFloats(*out, referenceAttention(c, x, wq, wk, wv, wo, cos, sin, mask, past_key, past_value), 2e-5f);
}

TEST(InterpAttention, OneTokenDecodeWithCacheLikeOnert) {
  // onert's case: batch 1, one token at position 5, mask over an aligned length of 32.
  checkAttention({1, 1, 32, 4, 4, 8, 64, {5}, 32, true}, 200);
}

TEST(InterpAttention, PrefillWithCacheGroupedHeadsAndBatch) {
  checkAttention({2, 3, 24, 4, 2, 6, 10, {2, 3, 4}, 8, true}, 210);
}

TEST(InterpAttention, WithoutCacheAttendsToTheTokensThemselves) {
  checkAttention({1, 5, 16, 2, 2, 8, 0, {}, 0, true}, 220);
  checkAttention({2, 4, 16, 4, 1, 4, 0, {}, 0, false}, 230);
}

TEST(InterpAttention, PositionOutsideTheAttendedRangeIsAnError) {
  const std::string message = errorOf([&] { checkAttention({1, 1, 16, 2, 2, 8, 8, {6}, 4, true}, 240); });
  EXPECT_TRUE(contains(message, "operator #0 (ATTENTION)")) << message;
  EXPECT_TRUE(contains(message, "cache_position 6")) << message;
}

} // namespace
} // namespace tico
