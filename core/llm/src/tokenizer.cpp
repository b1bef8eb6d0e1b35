// tico::llm::Tokenizer: loads the components of a tokenizer.json and runs the library's encode
// and decode pipelines over them.
#include "tico/llm/tokenizer.h"

#include "tokenizer_added_tokens.h"
#include "tokenizer_bpe.h"
#include "tokenizer_decoders.h"
#include "tokenizer_json.h"
#include "tokenizer_normalizers.h"
#include "tokenizer_post_processor.h"
#include "tokenizer_pre_tokenizers.h"
#include "tokenizer_utf8.h"

#include "tico/support/error.h"

#include <algorithm>
#include <fstream>

namespace tico::llm {

using namespace detail;

struct Tokenizer::Impl {
  std::unique_ptr<BpeModel> model;
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<PostProcessor> post_processor;
  Decoder decoder;
  AddedVocabulary added;
  std::vector<TokenId> special_ids;
  std::optional<TokenId> bos, eos, pad;
  std::size_t vocab_size = 0;

  // The string the decoder receives for `id` (Tokenizer::id_to_token in the library).
  std::optional<std::string_view> decoderToken(TokenId id) const {
    if (const AddedToken *token = added.tokenOf(id))
      return std::string_view(token->decoded);
    return model->vocabulary().tokenOf(id);
  }

  // The id of the first conventional name that is a special added token.
  std::optional<TokenId> conventional(std::initializer_list<std::string_view> names) const {
    for (std::string_view name : names)
      if (added.isSpecialContent(name))
        if (std::optional<TokenId> id = added.idOf(name))
          return id;
    return std::nullopt;
  }
};

struct StreamDecoder::State {
  const Tokenizer::Impl *impl;
  bool skip_special_tokens;
  std::unique_ptr<DecoderStream> stream;
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer &&) noexcept = default;
Tokenizer &Tokenizer::operator=(Tokenizer &&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::fromFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw Error("cannot open tokenizer file '" + path + "'");
  file.seekg(0, std::ios::end);
  std::streamoff size = file.tellg();
  file.seekg(0, std::ios::beg);
  std::string json(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  if (size < 0 || !file.read(json.data(), size))
    throw Error("cannot read tokenizer file '" + path + "'");
  return fromJson(json);
}

Tokenizer Tokenizer::fromJson(std::string_view json) {
  JsonDocument document(json);
  if (document.root().type() != JsonValue::Type::Object)
    throw Error("tokenizer.json: the document must be an object");
  JsonObject root(document.root(), "tokenizer.json");
  if (std::optional<JsonValue> version = root.findNonNull("version")) {
    std::string text = version->asString("version");
    if (text != "1.0")
      throw Error("tokenizer.json: unknown tokenizer version '" + text + "' (expected 1.0)");
  }
  auto impl = std::make_unique<Impl>();
  std::optional<JsonValue> model = root.findNonNull("model");
  if (!model)
    throw Error("tokenizer.json: no \"model\"");
  impl->model = BpeModel::load(*model);
  if (std::optional<JsonValue> normalizer = root.findNonNull("normalizer"))
    impl->normalizer = loadNormalizer(*normalizer);
  if (std::optional<JsonValue> pre_tokenizer = root.findNonNull("pre_tokenizer"))
    impl->pre_tokenizer = loadPreTokenizer(*pre_tokenizer);
  if (std::optional<JsonValue> post_processor = root.findNonNull("post_processor"))
    impl->post_processor = loadPostProcessor(*post_processor);
  std::optional<JsonValue> decoder = root.findNonNull("decoder");
  impl->decoder = Decoder::load(decoder ? &*decoder : nullptr);
  if (std::optional<JsonValue> added = root.findNonNull("added_tokens"))
    impl->added.load(*added, impl->model->vocabulary(), impl->normalizer.get());

  TokenId max_id = impl->model->vocabulary().maxId();
  for (const AddedToken &token : impl->added.tokens()) {
    max_id = std::max(max_id, token.id);
    if (token.special)
      impl->special_ids.push_back(token.id);
  }
  std::sort(impl->special_ids.begin(), impl->special_ids.end());
  impl->special_ids.erase(std::unique(impl->special_ids.begin(), impl->special_ids.end()), impl->special_ids.end());
  impl->vocab_size = static_cast<std::size_t>(max_id + 1);

  if (impl->post_processor) {
    impl->bos = impl->post_processor->tokenBeforeSequence();
    impl->eos = impl->post_processor->tokenAfterSequence();
  }
  if (!impl->bos)
    impl->bos = impl->conventional({"<bos>", "<s>", "<|begin_of_text|>"});
  if (!impl->eos)
    impl->eos = impl->conventional({"<eos>", "</s>", "<|end_of_text|>", "<|endoftext|>"});
  impl->pad = impl->conventional({"<pad>", "<|pad|>", "[PAD]"});
  return Tokenizer(std::move(impl));
}

std::vector<TokenId> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  std::size_t bad = findInvalidUtf8(text);
  if (bad != std::string_view::npos)
    throw Error("tokenizer: the text to encode is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  // Offsets are 32-bit and ICU indexes UTF-16 with int32_t; normalization and byte-level
  // mapping can grow the text up to 6 times (" " -> "▁" -> 3 two-byte characters).
  if (text.size() >= (std::size_t{1} << 28))
    throw Error("tokenizer: the text to encode is 256 MiB or larger, which is not supported");
  std::vector<Piece> pieces = impl_->added.extractAndNormalize(text, impl_->normalizer.get());
  if (impl_->pre_tokenizer)
    impl_->pre_tokenizer->preTokenize(pieces);
  std::vector<TokenId> ids;
  ids.reserve(text.size() / 3 + 4);
  for (const Piece &piece : pieces) {
    if (piece.token >= 0)
      ids.push_back(piece.token);
    else
      impl_->model->encodeWord(piece.text, ids);
  }
  if (impl_->post_processor)
    impl_->post_processor->process(ids, add_special_tokens);
  return ids;
}

std::string Tokenizer::decode(std::span<const TokenId> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (TokenId id : ids) {
    std::optional<std::string_view> token = impl_->decoderToken(id);
    if (!token || (skip_special_tokens && impl_->added.isSpecialContent(*token)))
      continue;
    tokens.emplace_back(*token);
  }
  return impl_->decoder.decode(std::move(tokens));
}

StreamDecoder Tokenizer::streamDecoder(bool skip_special_tokens) const {
  auto state = std::make_unique<StreamDecoder::State>();
  state->impl = impl_.get();
  state->skip_special_tokens = skip_special_tokens;
  state->stream = impl_->decoder.stream();
  return StreamDecoder(std::move(state));
}

std::size_t Tokenizer::vocabSize() const { return impl_->vocab_size; }

std::optional<TokenId> Tokenizer::tokenToId(std::string_view token) const {
  if (std::optional<TokenId> id = impl_->added.idOf(token))
    return id;
  return impl_->model->vocabulary().find(token);
}

std::optional<std::string> Tokenizer::idToToken(TokenId id) const {
  std::optional<std::string_view> token = impl_->decoderToken(id);
  if (!token)
    return std::nullopt;
  return std::string(*token);
}

const std::vector<TokenId> &Tokenizer::specialIds() const { return impl_->special_ids; }

bool Tokenizer::isSpecial(TokenId id) const {
  return std::binary_search(impl_->special_ids.begin(), impl_->special_ids.end(), id);
}

std::optional<TokenId> Tokenizer::bosId() const { return impl_->bos; }
std::optional<TokenId> Tokenizer::eosId() const { return impl_->eos; }
std::optional<TokenId> Tokenizer::padId() const { return impl_->pad; }
void Tokenizer::setBosId(std::optional<TokenId> id) { impl_->bos = id; }
void Tokenizer::setEosId(std::optional<TokenId> id) { impl_->eos = id; }
void Tokenizer::setPadId(std::optional<TokenId> id) { impl_->pad = id; }

StreamDecoder::StreamDecoder(std::unique_ptr<State> state) : state_(std::move(state)) {}
StreamDecoder::StreamDecoder(StreamDecoder &&) noexcept = default;
StreamDecoder &StreamDecoder::operator=(StreamDecoder &&) noexcept = default;
StreamDecoder::~StreamDecoder() = default;

std::string StreamDecoder::step(TokenId id) {
  std::optional<std::string_view> token = state_->impl->decoderToken(id);
  if (!token || (state_->skip_special_tokens && state_->impl->added.isSpecialContent(*token)))
    return {};
  state_->stream->token(*token);
  return state_->stream->take();
}

std::string StreamDecoder::finish() {
  state_->stream->finish();
  return state_->stream->take();
}

} // namespace tico::llm
