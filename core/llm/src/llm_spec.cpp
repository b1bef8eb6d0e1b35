// Reading and checking the LLM metadata (tico/llm/llm_spec.h).
#include "tico/llm/llm_spec.h"

#include "tico/support/error.h"
#include "tico/support/json_integer.h"

#include <nlohmann/json.hpp>

namespace tico::llm {
namespace {

std::optional<std::string> metadataEntry(const CircleModel &model, const std::string &name) {
  for (const auto &[key, index] : model.metadata)
    if (key == name) {
      const auto &data = model.buffers.at(index).data;
      if (!data)
        return std::string();
      std::vector<std::byte> bytes = data->contiguousBytes();
      return std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    }
  return std::nullopt;
}

const CircleSignature &signature(const CircleModel &model, const std::string &key) {
  for (const CircleSignature &s : model.signatures)
    if (s.key == key)
      return s;
  std::string known;
  for (const CircleSignature &s : model.signatures)
    known += (known.empty() ? "'" : ", '") + s.key + "'";
  throw Error("the LLM metadata names signature '" + key + "', which the model does not have (signatures: " +
              (known.empty() ? std::string("none") : known) + ")");
}

std::string shapeText(const std::vector<int32_t> &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// One signature's interface against the spec: token/position inputs of [1, tokens], caches of
// [1, kv_heads, max_context, head_dim], logits of [1, tokens, vocab] first among the outputs.
void checkSignature(const CircleModel &model, const LlmSpec &spec, const std::string &key, int64_t tokens) {
  const CircleSignature &sig = signature(model, key);
  const CircleSubGraph &graph = model.subgraphs.at(sig.subgraph_index);
  const std::size_t cache_tensors = 2 * spec.layers.size();
  const std::string where = "signature '" + key + "'";
  if (graph.inputs.size() != 2 + cache_tensors)
    throw Error(where + " has " + std::to_string(graph.inputs.size()) + " inputs; the LLM metadata describes " +
                std::to_string(2 + cache_tensors) + " (input_ids, positions and a key and a value cache per layer)");
  if (graph.outputs.size() != 1 + cache_tensors)
    throw Error(where + " has " + std::to_string(graph.outputs.size()) + " outputs; the LLM metadata describes " +
                std::to_string(1 + cache_tensors) + " (logits and the updated caches)");
  auto tensor = [&](int32_t index) -> const CircleTensor & { return graph.tensors.at(static_cast<std::size_t>(index)); };
  for (int i = 0; i < 2; ++i) {
    const CircleTensor &t = tensor(graph.inputs[i]);
    if (t.shape != std::vector<int32_t>{1, static_cast<int32_t>(tokens)})
      throw Error(where + " input " + std::to_string(i) + " ('" + t.name + "') has shape " + shapeText(t.shape) +
                  ", expected [1, " + std::to_string(tokens) + "]");
  }
  for (std::size_t l = 0; l < spec.layers.size(); ++l)
    for (int kv = 0; kv < 2; ++kv) {
      const std::vector<int32_t> expected{1, static_cast<int32_t>(spec.layers[l].kv_heads),
                                          static_cast<int32_t>(spec.max_context),
                                          static_cast<int32_t>(spec.layers[l].head_dim)};
      const CircleTensor &in = tensor(graph.inputs[2 + 2 * l + kv]);
      const CircleTensor &out = tensor(graph.outputs[1 + 2 * l + kv]);
      if (in.shape != expected || out.shape != expected)
        throw Error(where + ": layer " + std::to_string(l) + "'s " + (kv ? "value" : "key") + " cache is " +
                    shapeText(in.shape) + " in, " + shapeText(out.shape) + " out; the LLM metadata describes " +
                    shapeText(expected));
    }
  const CircleTensor &logits = tensor(graph.outputs[0]);
  if (logits.shape.size() != 3 || logits.shape[0] != 1 || logits.shape[1] != tokens || logits.shape[2] != spec.vocab_size)
    throw Error(where + " output 0 ('" + logits.name + "') has shape " + shapeText(logits.shape) + ", expected logits [1, " +
                std::to_string(tokens) + ", " + std::to_string(spec.vocab_size) + "]");
}

} // namespace

std::string LlmSpec::metadataText(const CircleModel &model) {
  auto text = metadataEntry(model, kSpecMetadata);
  if (!text)
    throw Error(std::string("the model has no '") + kSpecMetadata +
                "' metadata: it is not an LLM exported by tico_native.llm.export (docs/llm.md)");
  return *text;
}

// An integer field that must fit T (a float or an out-of-range number is refused, never cast).
template <class T> T integer(const nlohmann::json &v, const char *what) {
  const auto value = jsonInteger<T>(v);
  if (!value)
    throw Error(std::string("'") + what + "' must be an integer in range, got " + v.dump());
  return *value;
}

LlmSpec LlmSpec::fromModel(const CircleModel &model) {
  const std::string text = metadataText(model);
  LlmSpec spec;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("format") != "tico.llm" || j.at("version") != 1)
      throw Error("unknown format " + j.at("format").dump() + " version " + j.at("version").dump());
    spec.architecture = j.value("architecture", "");
    spec.vocab_size = integer<int64_t>(j.at("vocab_size"), "vocab_size");
    spec.max_context = integer<int64_t>(j.at("max_context"), "max_context");
    spec.prefill_len = integer<int64_t>(j.at("prefill_len"), "prefill_len");
    spec.prefill_signature = j.value("prefill_signature", spec.prefill_signature);
    spec.decode_signature = j.value("decode_signature", spec.decode_signature);
    for (const auto &layer : j.at("cache")) {
      CacheLayer c;
      c.kv_heads = integer<int64_t>(layer.at("kv_heads"), "kv_heads");
      c.head_dim = integer<int64_t>(layer.at("head_dim"), "head_dim");
      if (layer.contains("window") && !layer.at("window").is_null())
        c.window = integer<int64_t>(layer.at("window"), "window");
      spec.layers.push_back(c);
    }
    if (j.contains("bos_token_id") && !j.at("bos_token_id").is_null())
      spec.bos_id = integer<int32_t>(j.at("bos_token_id"), "bos_token_id");
    if (j.contains("eos_token_ids"))
      for (const auto &id : j.at("eos_token_ids"))
        spec.eos_ids.push_back(integer<int32_t>(id, "eos_token_ids"));
    if (j.contains("pad_token_id"))
      spec.pad_id = integer<int32_t>(j.at("pad_token_id"), "pad_token_id");
    spec.add_bos = j.value("add_bos", false);
    if (j.contains("chat_template") && j.at("chat_template").is_string())
      spec.chat_template = j.at("chat_template").get<std::string>();
  } catch (const nlohmann::json::exception &e) {
    throw Error(std::string("the '") + kSpecMetadata + "' metadata is malformed: " + e.what());
  } catch (const Error &e) {
    throw Error(std::string("the '") + kSpecMetadata + "' metadata is malformed: " + e.what());
  }
  if (spec.vocab_size <= 0 || spec.max_context <= 0 || spec.prefill_len <= 0 || spec.layers.empty())
    throw Error(std::string("the '") + kSpecMetadata + "' metadata gives no vocabulary, context, prefill length or layers");
  spec.has_tokenizer = metadataEntry(model, kTokenizerMetadata).has_value();
  checkSignature(model, spec, spec.prefill_signature, spec.prefill_len);
  checkSignature(model, spec, spec.decode_signature, 1);
  return spec;
}

std::optional<std::string> embeddedTokenizer(const CircleModel &model) {
  return metadataEntry(model, kTokenizerMetadata);
}

} // namespace tico::llm
