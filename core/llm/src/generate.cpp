// Sampling and the generation loop (tico/llm/session.h).
#include "tico/llm/session.h"

#include "tico/support/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace tico::llm {
namespace {

// A uniform double in [0, 1) from the top 53 bits: std::uniform_real_distribution's output is
// not specified by the standard, this is.
double uniform01(std::mt19937_64 &rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

int32_t argmax(const float *logits, int64_t vocab) {
  return static_cast<int32_t>(std::max_element(logits, logits + vocab) - logits); // the first maximum
}

} // namespace

int32_t sampleToken(const float *logits, int64_t vocab, const Sampling &sampling, std::mt19937_64 &rng) {
  if (sampling.temperature <= 0)
    return argmax(logits, vocab);
  // Candidates by decreasing logit (ties by id), cut to top_k, softmax at the temperature, cut
  // to top_p, then one draw.
  std::vector<int32_t> order(static_cast<std::size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  const auto by_logit = [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  std::size_t keep = order.size();
  if (sampling.top_k > 0 && static_cast<std::size_t>(sampling.top_k) < keep) {
    keep = static_cast<std::size_t>(sampling.top_k);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(), by_logit);
  } else {
    std::sort(order.begin(), order.end(), by_logit);
  }
  order.resize(keep);
  std::vector<double> p(keep);
  const double top = logits[order.front()];
  double sum = 0;
  for (std::size_t i = 0; i < keep; ++i) {
    p[i] = std::exp((logits[order[i]] - top) / sampling.temperature);
    sum += p[i];
  }
  if (sampling.top_p < 1.0) {
    double cumulative = 0;
    std::size_t cut = 0;
    while (cut < keep) {
      cumulative += p[cut] / sum;
      ++cut;
      if (cumulative >= sampling.top_p)
        break;
    }
    keep = cut;
    sum = std::accumulate(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(keep), 0.0);
  }
  double r = uniform01(rng) * sum;
  for (std::size_t i = 0; i < keep; ++i) {
    r -= p[i];
    if (r < 0)
      return order[i];
  }
  return order[keep - 1];
}

GenerationResult generate(LlmSession &session, const std::vector<int32_t> &prompt, const GenerationOptions &options,
                          const std::function<bool(int32_t)> &on_token) {
  const LlmSpec &spec = session.spec();
  if (prompt.empty())
    throw Error("the prompt is empty");
  if (static_cast<int64_t>(prompt.size()) > spec.max_context)
    throw Error("the prompt has " + std::to_string(prompt.size()) + " tokens, more than the model's max_context " +
                std::to_string(spec.max_context));
  GenerationResult result;
  result.prompt_tokens = static_cast<int64_t>(prompt.size());
  std::mt19937_64 rng(options.sampling.seed);
  session.reset();
  session.clearTimes();
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  session.feed(prompt);
  result.prefill_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::vector<float> *logits = &session.lastLogits();
  start = Clock::now();
  result.stop_reason = "length";
  while (static_cast<int64_t>(result.tokens.size()) < options.max_new_tokens) {
    const int32_t token = sampleToken(logits->data(), spec.vocab_size, options.sampling, rng);
    result.tokens.push_back(token);
    if (on_token && !on_token(token)) {
      result.stop_reason = "callback";
      break;
    }
    if (options.stop_at_eos && std::find(spec.eos_ids.begin(), spec.eos_ids.end(), token) != spec.eos_ids.end()) {
      result.stop_reason = "eos";
      break;
    }
    if (std::find(options.stop_ids.begin(), options.stop_ids.end(), token) != options.stop_ids.end()) {
      result.stop_reason = "stop";
      break;
    }
    if (static_cast<int64_t>(result.tokens.size()) >= options.max_new_tokens)
      break;
    if (session.position() >= spec.max_context) {
      result.stop_reason = "context";
      break;
    }
    const auto step_start = Clock::now();
    logits = &session.step(token);
    result.decode_step_seconds.push_back(std::chrono::duration<double>(Clock::now() - step_start).count());
    ++result.decode_steps;
  }
  result.decode_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

} // namespace tico::llm
