// LlmSession (tico/llm/session.h): prefill/decode calls over the explicit KV cache.
#include "tico/llm/session.h"

#include "tico/support/error.h"

#include <chrono>
#include <cstring>
#include <map>

namespace tico::llm {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

uint32_t subgraphOf(const CircleModel &model, const std::string &key) {
  for (const CircleSignature &s : model.signatures)
    if (s.key == key)
      return s.subgraph_index;
  throw Error("the model has no signature '" + key + "'"); // LlmSpec::fromModel checked it; kept for safety
}

std::shared_ptr<const TensorData> int32Row(const std::vector<int32_t> &values) {
  return std::make_shared<const TensorData>(
      TensorData::fromVector(DType::Int32, {1, static_cast<int64_t>(values.size())}, values));
}

// A zero cache of the declared type: float zeros, or the zero point's code of a quantized cache.
std::shared_ptr<const TensorData> emptyCacheTensor(const CircleTensor &declared) {
  const DType dtype = fromCircleType(declared.type);
  std::vector<int64_t> sizes(declared.shape.begin(), declared.shape.end());
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  std::vector<std::byte> bytes(static_cast<std::size_t>(count) * elementSize(dtype), std::byte{0});
  if (declared.quantization && !declared.quantization->zero_point.empty()) {
    const int64_t zp = declared.quantization->zero_point.front();
    if (zp != 0) {
      if (dtype == DType::Int8 || dtype == DType::UInt8)
        std::memset(bytes.data(), static_cast<int>(zp), bytes.size());
      else if (dtype == DType::Int16) {
        auto *p = reinterpret_cast<int16_t *>(bytes.data());
        for (int64_t i = 0; i < count; ++i)
          p[i] = static_cast<int16_t>(zp);
      } else {
        throw Error("a quantized cache of type " + std::string(dtypeName(dtype)) + " with a zero point is not supported");
      }
    }
  }
  return std::make_shared<const TensorData>(TensorData::fromBytes(dtype, std::move(sizes), std::move(bytes)));
}

const float *floatLogits(const TensorData &logits, int64_t vocab, std::size_t row) {
  if (logits.dtype != DType::Float32)
    throw Error("the model returns logits of type " + std::string(dtypeName(logits.dtype)) + "; float32 is expected");
  if (!logits.isContiguous())
    throw Error("the runtime returned non-contiguous logits");
  return reinterpret_cast<const float *>(logits.data()) + row * static_cast<std::size_t>(vocab);
}

} // namespace

LlmSession::LlmSession(std::shared_ptr<const CircleModel> model, std::shared_ptr<PreparedModel> runtime)
    : model_(std::move(model)), runtime_(std::move(runtime)), spec_(LlmSpec::fromModel(*model_)) {
  prefill_subgraph_ = subgraphOf(*model_, spec_.prefill_signature);
  decode_subgraph_ = subgraphOf(*model_, spec_.decode_signature);
  const CircleSubGraph &graph = model_->subgraphs.at(decode_subgraph_);
  // Equal declarations share one zero tensor: the runtime only reads inputs.
  std::map<std::pair<std::vector<int32_t>, int>, std::shared_ptr<const TensorData>> zeros;
  for (std::size_t i = 2; i < graph.inputs.size(); ++i) {
    const CircleTensor &declared = graph.tensors.at(static_cast<std::size_t>(graph.inputs[i]));
    auto key = std::make_pair(declared.shape, static_cast<int>(declared.type));
    auto &tensor = zeros[key];
    if (!tensor || declared.quantization)
      tensor = emptyCacheTensor(declared);
    empty_cache_.push_back(tensor);
  }
  reset();
}

void LlmSession::reset() {
  cache_ = empty_cache_;
  position_ = 0;
  history_.clear();
}

void LlmSession::runChunk(const int32_t *tokens, std::size_t count, bool through_prefill, const LogitsSink &sink) {
  const int64_t width = through_prefill ? spec_.prefill_len : 1;
  // A call writes its tokens' keys and values into consecutive cache slots from its first
  // position (the exported graph's DYNAMIC_UPDATE_SLICE), so the window must end inside the
  // cache: a padded prefill near the end starts earlier and feeds the tokens before it again
  // (same tokens at the same positions: the same keys and values are written over themselves).
  const int64_t start = std::min(position_, spec_.max_context - width);
  const auto again = static_cast<std::size_t>(position_ - start);
  std::vector<int32_t> ids(static_cast<std::size_t>(width), spec_.pad_id);
  std::vector<int32_t> positions(static_cast<std::size_t>(width));
  for (int64_t i = 0; i < width; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (u < again)
      ids[u] = history_[static_cast<std::size_t>(start) + u];
    else if (u - again < count)
      ids[u] = tokens[u - again];
    positions[u] = static_cast<int32_t>(start + i);
  }
  std::vector<std::shared_ptr<const TensorData>> inputs{int32Row(ids), int32Row(positions)};
  inputs.insert(inputs.end(), cache_.begin(), cache_.end());
  const auto started = Clock::now();
  std::vector<std::shared_ptr<const TensorData>> outputs =
      runtime_->run(inputs, through_prefill ? prefill_subgraph_ : decode_subgraph_);
  const double seconds = secondsSince(started);
  if (through_prefill) {
    ++times_.prefill_calls;
    times_.prefill_tokens += static_cast<int64_t>(count);
    times_.prefill_seconds += seconds;
  } else {
    ++times_.decode_calls;
    times_.decode_seconds += seconds;
  }
  if (outputs.size() != 1 + cache_.size())
    throw Error("the runtime returned " + std::to_string(outputs.size()) + " outputs, expected " +
                std::to_string(1 + cache_.size()));
  std::copy(outputs.begin() + 1, outputs.end(), cache_.begin());
  position_ += static_cast<int64_t>(count);
  history_.insert(history_.end(), tokens, tokens + count);
  const TensorData &logits = *outputs.front();
  if (sink)
    for (std::size_t i = 0; i < count; ++i)
      sink(i, floatLogits(logits, spec_.vocab_size, again + i));
  const float *last = floatLogits(logits, spec_.vocab_size, again + count - 1);
  last_logits_.assign(last, last + spec_.vocab_size);
}

void LlmSession::feed(const std::vector<int32_t> &tokens, const LogitsSink &sink) {
  if (tokens.empty())
    return;
  if (position_ + static_cast<int64_t>(tokens.size()) > spec_.max_context)
    throw Error("the context would hold " + std::to_string(position_ + static_cast<int64_t>(tokens.size())) +
                " tokens; the model was exported with max_context " + std::to_string(spec_.max_context));
  for (int32_t t : tokens)
    if (t < 0 || t >= spec_.vocab_size)
      throw Error("token id " + std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(spec_.vocab_size) + ")");
  std::size_t done = 0;
  while (done < tokens.size()) {
    const std::size_t left = tokens.size() - done;
    const std::size_t chunk = std::min<std::size_t>(left, static_cast<std::size_t>(spec_.prefill_len));
    const bool prefill = chunk > 1;
    LogitsSink offset_sink;
    if (sink)
      offset_sink = [&, base = done](std::size_t i, const float *logits) { sink(base + i, logits); };
    runChunk(tokens.data() + done, chunk, prefill, offset_sink);
    done += chunk;
  }
}

const std::vector<float> &LlmSession::step(int32_t token) {
  feed({token});
  return last_logits_;
}

} // namespace tico::llm
