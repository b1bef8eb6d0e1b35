// Running an exported LLM: prompt chunks through the prefill signature, tokens one at a time
// through the decode signature, the KV cache handed from each call's outputs to the next call's
// inputs (no copy: the tensors are passed on as they come back). Generation, perplexity and
// log-likelihood scoring are built on this; any runtime behind the runtime ABI runs it.
#pragma once

#include "tico/llm/llm_spec.h"
#include "tico/runtime/runtime.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tico::llm {

// Called with the index of a fed token (0-based within the feed() call) and the logits that
// predict the token after it (vocab_size floats, valid during the call).
using LogitsSink = std::function<void(std::size_t index, const float *logits)>;

struct CallTimes {
  int64_t prefill_calls = 0;
  int64_t prefill_tokens = 0; // real tokens fed through prefill (padding not counted)
  double prefill_seconds = 0;
  int64_t decode_calls = 0;
  double decode_seconds = 0;
};

class LlmSession {
public:
  LlmSession(std::shared_ptr<const CircleModel> model, std::shared_ptr<PreparedModel> runtime);

  const LlmSpec &spec() const { return spec_; }
  // Tokens in the cache; the next token is written at this position.
  int64_t position() const { return position_; }
  // Empties the cache (position 0).
  void reset();

  // Appends `tokens` to the context: full chunks of prefill_len through prefill; a remainder of
  // one token through decode, a longer one through a prefill padded with pad_id (the padding
  // writes cache slots past the context, which the mask hides until a real token overwrites
  // them; a window that would end past the cache starts earlier and feeds the tokens before it
  // again). `sink`, when given, receives the logits after every token. Throws tico::Error when
  // the context would exceed max_context, naming both.
  void feed(const std::vector<int32_t> &tokens, const LogitsSink &sink = {});
  // One token through decode; returns the logits predicting the next one.
  const std::vector<float> &step(int32_t token);
  // The logits after the last token fed (empty before any).
  const std::vector<float> &lastLogits() const { return last_logits_; }

  const CallTimes &times() const { return times_; }
  void clearTimes() { times_ = {}; }

private:
  void runChunk(const int32_t *tokens, std::size_t count, bool through_prefill, const LogitsSink &sink);

  std::shared_ptr<const CircleModel> model_;
  std::shared_ptr<PreparedModel> runtime_;
  LlmSpec spec_;
  uint32_t prefill_subgraph_ = 0;
  uint32_t decode_subgraph_ = 0;
  std::vector<std::shared_ptr<const TensorData>> empty_cache_;
  std::vector<std::shared_ptr<const TensorData>> cache_;
  int64_t position_ = 0;
  std::vector<int32_t> history_; // the tokens in the cache, for windows that start earlier
  std::vector<float> last_logits_;
  CallTimes times_;
};

// ---- Sampling and generation -----------------------------------------------------------------

struct Sampling {
  double temperature = 0; // 0: greedy (the first maximum, as torch.argmax)
  int64_t top_k = 0;      // > 0: sample among the k most likely tokens
  double top_p = 1.0;     // < 1: among the smallest set whose probability reaches top_p
  uint64_t seed = 0;
};

// The next token from `logits` (vocab floats). Sampling draws from `rng` with hand-written
// distributions, so a seed gives the same tokens on every platform.
int32_t sampleToken(const float *logits, int64_t vocab, const Sampling &sampling, std::mt19937_64 &rng);

struct GenerationOptions {
  int64_t max_new_tokens = 64;
  Sampling sampling;
  bool stop_at_eos = true;           // stop after an end-of-sequence id of the spec
  std::vector<int32_t> stop_ids;     // more ids that end the generation
};

struct GenerationResult {
  std::vector<int32_t> tokens;       // the new tokens (a stop token included)
  std::string stop_reason;           // "length", "eos", "stop", "context", "callback"
  int64_t prompt_tokens = 0;
  double prefill_seconds = 0;        // time to the first new token's logits
  double decode_seconds = 0;         // the decode steps after it
  int64_t decode_steps = 0;
  std::vector<double> decode_step_seconds; // each decode step (the steady rate is their median)
};

// Resets the session, feeds `prompt` and generates. `on_token` sees every new token as it
// comes and may return false to stop. Throws tico::Error for an empty prompt or one longer than
// max_context.
GenerationResult generate(LlmSession &session, const std::vector<int32_t> &prompt, const GenerationOptions &options,
                          const std::function<bool(int32_t)> &on_token = {});

// ---- Evaluation ---------------------------------------------------------------------------------

struct PerplexityResult {
  double nll = 0;          // summed negative log-likelihood (nats)
  int64_t predictions = 0; // tokens scored
  int64_t windows = 0;
  double perplexity() const;
};

struct PerplexityOptions {
  int64_t window = 0;         // tokens per window, bos included (0: prefill_len); ≤ max_context
  int64_t max_windows = 0;    // 0: as many as the text holds
  bool bos = true;            // start every window with bos_id when the model has one and add_bos
};

// Non-overlapping windows over `tokens`, each from an empty cache: the window's text tokens are
// scored from the logits before them (the first only when a bos starts the window).
PerplexityResult perplexity(LlmSession &session, const std::vector<int32_t> &tokens, const PerplexityOptions &options,
                            const std::function<void(const PerplexityResult &)> &progress = {});

// log P(continuation | context) in nats, from an empty cache (bos first when the spec adds it).
double logLikelihood(LlmSession &session, const std::vector<int32_t> &context, const std::vector<int32_t> &continuation);

// log-softmax of logits[target] (numerically stable, double accumulation).
double logProbability(const float *logits, int64_t vocab, int32_t target);

} // namespace tico::llm
