// Perplexity and log-likelihood scoring (tico/llm/session.h).
#include "tico/llm/session.h"

#include "tico/support/error.h"

#include <cmath>

namespace tico::llm {

double logProbability(const float *logits, int64_t vocab, int32_t target) {
  double top = logits[0];
  for (int64_t i = 1; i < vocab; ++i)
    top = std::max<double>(top, logits[i]);
  double sum = 0;
  for (int64_t i = 0; i < vocab; ++i)
    sum += std::exp(static_cast<double>(logits[i]) - top);
  return static_cast<double>(logits[target]) - top - std::log(sum);
}

double PerplexityResult::perplexity() const {
  return predictions == 0 ? std::nan("") : std::exp(nll / static_cast<double>(predictions));
}

PerplexityResult perplexity(LlmSession &session, const std::vector<int32_t> &tokens, const PerplexityOptions &options,
                            const std::function<void(const PerplexityResult &)> &progress) {
  const LlmSpec &spec = session.spec();
  const int64_t window = options.window > 0 ? options.window : spec.prefill_len;
  if (window > spec.max_context)
    throw Error("a window of " + std::to_string(window) + " tokens does not fit the model's max_context " +
                std::to_string(spec.max_context));
  const bool bos = options.bos && spec.add_bos && spec.bos_id.has_value();
  const int64_t text_per_window = bos ? window - 1 : window;
  if (text_per_window < 2)
    throw Error("a window of " + std::to_string(window) + " tokens scores nothing");
  PerplexityResult result;
  for (std::size_t begin = 0; begin + static_cast<std::size_t>(text_per_window) <= tokens.size();
       begin += static_cast<std::size_t>(text_per_window)) {
    if (options.max_windows > 0 && result.windows >= options.max_windows)
      break;
    std::vector<int32_t> ids;
    if (bos)
      ids.push_back(*spec.bos_id);
    ids.insert(ids.end(), tokens.begin() + static_cast<std::ptrdiff_t>(begin),
               tokens.begin() + static_cast<std::ptrdiff_t>(begin + static_cast<std::size_t>(text_per_window)));
    session.reset();
    session.feed(ids, [&](std::size_t i, const float *logits) {
      if (i + 1 < ids.size()) {
        result.nll -= logProbability(logits, spec.vocab_size, ids[i + 1]);
        ++result.predictions;
      }
    });
    ++result.windows;
    if (progress)
      progress(result);
  }
  if (result.windows == 0)
    throw Error("the text has " + std::to_string(tokens.size()) + " tokens, fewer than one window of " +
                std::to_string(text_per_window));
  return result;
}

double logLikelihood(LlmSession &session, const std::vector<int32_t> &context, const std::vector<int32_t> &continuation) {
  const LlmSpec &spec = session.spec();
  std::vector<int32_t> ids;
  if (spec.add_bos && spec.bos_id)
    ids.push_back(*spec.bos_id);
  ids.insert(ids.end(), context.begin(), context.end());
  if (ids.empty())
    throw Error("log-likelihood needs a context (or a model that starts with bos)");
  const std::size_t first = ids.size(); // index of the first continuation token
  ids.insert(ids.end(), continuation.begin(), continuation.end());
  double total = 0;
  session.reset();
  session.feed(ids, [&](std::size_t i, const float *logits) {
    if (i + 1 >= first && i + 1 < ids.size())
      total += logProbability(logits, spec.vocab_size, ids[i + 1]);
  });
  return total;
}

} // namespace tico::llm
