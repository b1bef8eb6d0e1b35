// What an exported LLM's Circle file says about itself (metadata "tico.llm.v1", written by
// tico_native.llm.export; docs/llm.md has the format): which signatures run prefill and decode,
// how inputs and outputs are ordered, the cache layout, the context limits and the tokens that
// matter for generation.
#pragma once

#include "tico/circle/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tico::llm {

inline constexpr const char *kSpecMetadata = "tico.llm.v1";
inline constexpr const char *kTokenizerMetadata = "tico.tokenizer.json";

struct CacheLayer {
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  std::optional<int64_t> window; // sliding-window length; none for global attention
};

struct LlmSpec {
  std::string architecture;            // "Gemma3ForCausalLM"
  int64_t vocab_size = 0;
  int64_t max_context = 0;             // cache slots: positions 0 .. max_context-1
  int64_t prefill_len = 0;             // tokens per prefill call (P)
  std::string prefill_signature = "prefill";
  std::string decode_signature = "decode";
  std::vector<CacheLayer> layers;      // inputs: input_ids, positions, k_0, v_0, k_1, v_1, ...
  std::optional<int32_t> bos_id;
  std::vector<int32_t> eos_ids;
  int32_t pad_id = 0;
  bool add_bos = false;                // prompts start with bos_id
  std::string chat_template;           // Jinja text, may be empty
  bool has_tokenizer = false;          // metadata kTokenizerMetadata holds a tokenizer.json

  // Reads the spec of `model` and checks it against the model: both signatures exist, with
  // 2 + 2·layers inputs and 1 + 2·layers outputs of the declared shapes. Throws tico::Error
  // naming what is missing or inconsistent ("not an LLM exported by tico_native.llm.export" when
  // there is no metadata at all).
  static LlmSpec fromModel(const CircleModel &model);
  // The JSON text as stored.
  static std::string metadataText(const CircleModel &model);
};

// The tokenizer.json bytes embedded in the model, if any.
std::optional<std::string> embeddedTokenizer(const CircleModel &model);

} // namespace tico::llm
